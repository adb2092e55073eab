#pragma once
// io's image reader (image_in.cpp): the channels of a PNG, JPEG, binary PNM, BMP, TGA or GIF
// file, each a rows x cols array of u8 (u16 for 16-bit PNG and PNM), named R, G, B, A or gray.
#include <string>

#include "pplab/io.hpp"

namespace pplab::io {

input read_image(const std::string& path);

}  // namespace pplab::io
