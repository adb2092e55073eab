// The one translation unit that compiles stb_image and stb_image_write (Debian's libstb-dev ships
// headers). stb_image decodes only BMP, TGA and GIF: PNG and JPEG go to libpng and libjpeg, PNM
// is read by pplab itself (image_in.cpp), so stb's decoders of those are not even compiled.
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_BMP
#define STBI_ONLY_TGA
#define STBI_ONLY_GIF
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_NO_HDR
#define STBI_NO_LINEAR
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>
