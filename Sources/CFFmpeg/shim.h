#ifndef CFFMPEG_SHIM_H
#define CFFMPEG_SHIM_H

#include <libavcodec/avcodec.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

// Macros Swift cannot import, re-exported as functions and constants.

/// AVERROR(e): a negated POSIX error code.
static inline int cffmpeg_averror(int posix_error) { return AVERROR(posix_error); }

/// AVERROR(EAGAIN): the codec needs input, or output must be read first.
static inline int cffmpeg_eagain(void) { return AVERROR(EAGAIN); }

/// AVERROR_EOF: the codec is drained.
static inline int cffmpeg_eof(void) { return AVERROR_EOF; }

/// AVERROR_INVALIDDATA.
static inline int cffmpeg_invalid_data(void) { return AVERROR_INVALIDDATA; }

/// AV_NOPTS_VALUE.
static inline int64_t cffmpeg_nopts(void) { return AV_NOPTS_VALUE; }

/// av_err2str, into a caller's buffer of at least AV_ERROR_MAX_STRING_SIZE bytes.
static inline const char *cffmpeg_error_string(int error, char *buffer, size_t size) {
    av_strerror(error, buffer, size);
    return buffer;
}

/// av_log_set_level, so that a library user decides what FFmpeg prints.
static inline void cffmpeg_set_log_level(int level) { av_log_set_level(level); }

/// AV_LOG_QUIET, AV_LOG_ERROR.
static inline int cffmpeg_log_quiet(void) { return AV_LOG_QUIET; }
static inline int cffmpeg_log_error(void) { return AV_LOG_ERROR; }

/// AVFrame.data[i] and linesize[i] (imported as 8-tuples).
static inline uint8_t *cffmpeg_frame_plane(const AVFrame *frame, int plane) { return frame->data[plane]; }
static inline int cffmpeg_frame_stride(const AVFrame *frame, int plane) { return frame->linesize[plane]; }

#endif
