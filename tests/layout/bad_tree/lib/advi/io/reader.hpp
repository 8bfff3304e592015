// A quoted include of our own header.
#include "helper.hpp"
