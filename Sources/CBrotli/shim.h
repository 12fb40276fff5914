#include <brotli/decode.h>
#include <brotli/encode.h>
