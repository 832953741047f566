def prop_machines_valid(h, case, rng): pass
def prop_machines_invalid(h, case, rng): pass
def prop_machines_fuzz(h, case, rng): pass
