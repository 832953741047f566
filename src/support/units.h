// Physical quantities in machine files and on the command line.
//
// Every quantity is held in SI base units as a double: seconds, bytes, flops,
// bytes/s, flop/s, Hz. Parsing accepts what people write ("10 GB/s", "60 us",
// "64 KiB", "5.3 Gflop/s"): decimal prefixes (k, M, G, T, P) are powers of 1000,
// binary ones (Ki, Mi, Gi, Ti) powers of 1024, as IEC 80000-13 says.
#pragma once

#include <string>
#include <string_view>

namespace perfcast::units {

enum class Dimension { Seconds, Bytes, Flops, BytesPerSecond, FlopsPerSecond, Hertz, Count };

const char* dimension_name(Dimension d);   // "time", "bytes", "bandwidth", ...
const char* dimension_example(Dimension d);  // "60 us", "64 KiB", "10 GB/s", ...

struct Quantity {
  double value = 0;  // in SI base units of `dimension`
  Dimension dimension = Dimension::Count;
};

// Parses "<number> <unit>" (space optional). Throws UserError naming the text
// and the expected dimension when the unit is unknown or of another dimension.
// A bare number is accepted only when `allow_bare_number` is true and is then
// taken in base units.
double parse(std::string_view text, Dimension expected, bool allow_bare_number = false);

// Parses any known unit and reports which dimension it had.
Quantity parse_any(std::string_view text);

// Human formatting with a prefix chosen so the number has 1-3 integer digits:
// format(13e9, BytesPerSecond) == "13 GB/s"; bytes use binary prefixes (KiB, MiB).
std::string format(double value, Dimension d, int significant_digits = 4);

}  // namespace perfcast::units
