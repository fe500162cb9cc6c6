#ifndef CFFMPEG_SHIM_H
#define CFFMPEG_SHIM_H

// FFmpeg's headers, found through pkg-config where they are not on the default include path. Nothing
// is linked from here: CFFmpegLoader opens the libraries when the first decoder is made.
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>

#endif
