# A model with the bodies of the named functions emptied, where a count does
# not evaluate at the probe run's values (not traced): gselim, the coarse
# grid's Gaussian elimination (a sum over its pivot loop wraps an unsigned
# count; 845 flops in callgrind's run at 1 rank, 1785 a rank at 2), and at 2
# ranks hypre_DataExchangeList (an unrolled loop of `num_contacts`, 0 on some
# calls, under a branch the probe left at its guess; 16 flops).
# usage: empty.py IN.json OUT.json FUNCTION...
import json, sys
m = json.load(open(sys.argv[1]))
for f in sys.argv[3:]: m['functions'][f]['body'] = []
json.dump(m, open(sys.argv[2], 'w'))
