// Boost.URL (the review server parses request targets with it), compiled
// here: Debian's Boost 1.81 ships it as sources, not as a library. Kept out
// of the unity build (CMakeLists.txt): its sources must be a unit alone.
#include <boost/url/src.hpp>
