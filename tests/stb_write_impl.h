/*
 * stb_write_impl.h - stb_image_write's implementation, static to the one .c
 * file of a test program that includes this (the tests' image writers:
 * PNG, BMP and JPEG files for the loaders), with the warnings of that
 * third-party code silenced. Define STBI_WRITE_NO_STDIO first to leave out
 * its FILE functions.
 */
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb_image_write.h>
#pragma GCC diagnostic pop
