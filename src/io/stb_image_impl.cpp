// The one translation unit that compiles stb_image (Debian's libstb-dev ships headers).
#define STB_IMAGE_IMPLEMENTATION
#define STBI_NO_HDR
#define STBI_NO_LINEAR
#include <stb/stb_image.h>
