// The one translation unit that compiles stb_image and stb_image_write (Debian's libstb-dev ships
// headers).
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_NO_HDR
#define STBI_NO_LINEAR
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>
