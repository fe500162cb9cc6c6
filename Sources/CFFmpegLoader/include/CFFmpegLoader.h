#ifndef CFFMPEG_LOADER_H
#define CFFMPEG_LOADER_H

#include <stddef.h>
#include <libavcodec/avcodec.h>
#include <libavutil/error.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>
#include <libavutil/channel_layout.h>
#include <libavutil/samplefmt.h>

// libavcodec, libavutil and libswscale are opened when the first decoder is made, not when the process
// starts: a program that links the decoder but does not decode (rtpdump's other commands) does not load
// FFmpeg and the hundred libraries it depends on (about 20 ms of CPU at every start on Linux).

/// A field holding a pointer to the FFmpeg function of the same name, with that function's own type.
#define CFFMPEG_FUNCTION(name) __typeof__(name) *_Nonnull name

/// The FFmpeg functions the decoder calls.
typedef struct {
    CFFMPEG_FUNCTION(avcodec_find_decoder);
    CFFMPEG_FUNCTION(avcodec_alloc_context3);
    CFFMPEG_FUNCTION(avcodec_open2);
    CFFMPEG_FUNCTION(avcodec_free_context);
    CFFMPEG_FUNCTION(avcodec_send_packet);
    CFFMPEG_FUNCTION(avcodec_receive_frame);
    CFFMPEG_FUNCTION(avcodec_flush_buffers);
    CFFMPEG_FUNCTION(av_packet_alloc);
    CFFMPEG_FUNCTION(av_packet_free);
    CFFMPEG_FUNCTION(av_frame_alloc);
    CFFMPEG_FUNCTION(av_frame_free);
    CFFMPEG_FUNCTION(av_frame_unref);
    CFFMPEG_FUNCTION(av_mallocz);
    CFFMPEG_FUNCTION(av_strerror);
    CFFMPEG_FUNCTION(av_log_set_level);
    CFFMPEG_FUNCTION(av_get_pix_fmt_name);
    CFFMPEG_FUNCTION(sws_getCachedContext);
    CFFMPEG_FUNCTION(sws_scale);
    CFFMPEG_FUNCTION(sws_freeContext);
} cffmpeg_api;

/// Opens the FFmpeg libraries of the major versions this was compiled against (once per process; safe
/// from any thread) and returns their functions; or NULL, with the reason written to `error`.
const cffmpeg_api *_Nullable cffmpeg_load(char *_Nonnull error, size_t size);

/// The functions the audio decoder and encoder call besides those of `cffmpeg_api`: channel layouts and
/// sample buffers (libavutil), sample format conversion (libswresample, opened only when the first audio
/// decoder or encoder is made) and libavcodec's encoding calls.
typedef struct {
    CFFMPEG_FUNCTION(av_channel_layout_default);
    CFFMPEG_FUNCTION(av_channel_layout_uninit);
    CFFMPEG_FUNCTION(swr_alloc_set_opts2);
    CFFMPEG_FUNCTION(swr_init);
    CFFMPEG_FUNCTION(swr_convert);
    CFFMPEG_FUNCTION(swr_free);
    CFFMPEG_FUNCTION(swr_get_out_samples);
    CFFMPEG_FUNCTION(av_get_bytes_per_sample);
    CFFMPEG_FUNCTION(av_frame_get_buffer);
    CFFMPEG_FUNCTION(av_frame_make_writable);
    CFFMPEG_FUNCTION(avcodec_find_encoder);
    CFFMPEG_FUNCTION(avcodec_find_encoder_by_name);
    CFFMPEG_FUNCTION(avcodec_send_frame);
    CFFMPEG_FUNCTION(avcodec_receive_packet);
    CFFMPEG_FUNCTION(av_packet_unref);
} cffmpeg_audio_api;

/// Opens libswresample beside the libraries of `cffmpeg_load` (once per process) and returns the audio
/// functions, the encoder's among them; or NULL, with the reason written to `error`.
const cffmpeg_audio_api *_Nullable cffmpeg_load_audio(char *_Nonnull error, size_t size);

/// AVCodecContext.ch_layout's channel count, and its sample format's bytes per sample.
static inline int cffmpeg_channels(const AVCodecContext *_Nonnull context) { return context->ch_layout.nb_channels; }
static inline int cffmpeg_frame_channels(const AVFrame *_Nonnull frame) { return frame->ch_layout.nb_channels; }
/// Whether an encoder takes a last frame shorter than the others (AV_CODEC_CAP_SMALL_LAST_FRAME), or frames
/// of any size (AV_CODEC_CAP_VARIABLE_FRAME_SIZE).
static inline int cffmpeg_takes_small_last_frame(const AVCodec *_Nonnull codec) {
    return (codec->capabilities & (AV_CODEC_CAP_SMALL_LAST_FRAME | AV_CODEC_CAP_VARIABLE_FRAME_SIZE)) != 0;
}
/// AVFrame.extended_data[plane]: an audio frame's plane (one for interleaved samples, one a channel for planar).
static inline uint8_t *_Nullable cffmpeg_frame_audio_plane(const AVFrame *_Nonnull frame, int plane) {
    return frame->extended_data[plane];
}

// Macros Swift cannot import, re-exported as functions and constants (no FFmpeg symbol is used).

/// AVERROR(e): a negated POSIX error code.
static inline int cffmpeg_averror(int posix_error) { return AVERROR(posix_error); }
/// AVERROR(EAGAIN): the codec needs input, or output must be read first.
static inline int cffmpeg_eagain(void) { return AVERROR(EAGAIN); }
/// AVERROR_EOF: the codec is drained.
static inline int cffmpeg_eof(void) { return AVERROR_EOF; }
/// AV_NOPTS_VALUE.
static inline int64_t cffmpeg_nopts(void) { return AV_NOPTS_VALUE; }
/// AV_LOG_QUIET.
static inline int cffmpeg_log_quiet(void) { return AV_LOG_QUIET; }
/// AVFrame.data[i] and linesize[i] (imported as 8-tuples).
static inline uint8_t *_Nullable cffmpeg_frame_plane(const AVFrame *_Nonnull frame, int plane) {
    return frame->data[plane];
}
static inline int cffmpeg_frame_stride(const AVFrame *_Nonnull frame, int plane) { return frame->linesize[plane]; }

#endif
