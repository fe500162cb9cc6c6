#include "CFFmpegLoader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static cffmpeg_api api;
static const cffmpeg_api *loaded;
static char failure[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/// lib<name> of major version `major`: the process itself when `probe` is already there (linked), else
/// the file by the name the dynamic loader searches for (and, on Apple platforms, in Homebrew's prefixes).
static void *open_library(const char *name, int major, const char *probe) {
    if (dlsym(RTLD_DEFAULT, probe) != NULL) return RTLD_DEFAULT;
#if defined(__APPLE__)
    const char *const patterns[] = {"lib%s.%d.dylib", "/opt/homebrew/lib/lib%s.%d.dylib", "/usr/local/lib/lib%s.%d.dylib"};
#else
    const char *const patterns[] = {"lib%s.so.%d"};
#endif
    char file[96];
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
        snprintf(file, sizeof file, patterns[i], name, major);
        void *handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
        if (handle != NULL) return handle;
        if (i == 0) {
            const char *reason = dlerror();
            snprintf(failure, sizeof failure, "%s (%s)", reason ? reason : "no reason given", file);
        }
    }
    return NULL;
}

static void load(void) {
    void *avutil = open_library("avutil", LIBAVUTIL_VERSION_MAJOR, "av_frame_alloc");
    if (avutil == NULL) return;
    void *avcodec = open_library("avcodec", LIBAVCODEC_VERSION_MAJOR, "avcodec_find_decoder");
    if (avcodec == NULL) return;
    void *swscale = open_library("swscale", LIBSWSCALE_VERSION_MAJOR, "sws_scale");
    if (swscale == NULL) return;
#define CFFMPEG_LOAD(library, name)                                                                 \
    if ((api.name = (__typeof__(api.name))dlsym(library, #name)) == NULL) {                         \
        snprintf(failure, sizeof failure, "lib" #library " has no function " #name);               \
        return;                                                                                     \
    }
    CFFMPEG_LOAD(avcodec, avcodec_find_decoder)
    CFFMPEG_LOAD(avcodec, avcodec_alloc_context3)
    CFFMPEG_LOAD(avcodec, avcodec_open2)
    CFFMPEG_LOAD(avcodec, avcodec_free_context)
    CFFMPEG_LOAD(avcodec, avcodec_send_packet)
    CFFMPEG_LOAD(avcodec, avcodec_receive_frame)
    CFFMPEG_LOAD(avcodec, avcodec_flush_buffers)
    CFFMPEG_LOAD(avcodec, av_packet_alloc)
    CFFMPEG_LOAD(avcodec, av_packet_free)
    CFFMPEG_LOAD(avutil, av_frame_alloc)
    CFFMPEG_LOAD(avutil, av_frame_free)
    CFFMPEG_LOAD(avutil, av_frame_unref)
    CFFMPEG_LOAD(avutil, av_mallocz)
    CFFMPEG_LOAD(avutil, av_strerror)
    CFFMPEG_LOAD(avutil, av_log_set_level)
    CFFMPEG_LOAD(avutil, av_get_pix_fmt_name)
    CFFMPEG_LOAD(swscale, sws_getCachedContext)
    CFFMPEG_LOAD(swscale, sws_scale)
    CFFMPEG_LOAD(swscale, sws_freeContext)
#undef CFFMPEG_LOAD
    loaded = &api;
}

const cffmpeg_api *cffmpeg_load(char *error, size_t size) {
    pthread_once(&once, load);
    if (loaded == NULL && size > 0) snprintf(error, size, "%s", failure);
    return loaded;
}

static cffmpeg_audio_api audio_api;
static const cffmpeg_audio_api *audio_loaded;
static char audio_failure[512];
static pthread_once_t audio_once = PTHREAD_ONCE_INIT;

static void load_audio(void) {
    if (cffmpeg_load(audio_failure, sizeof audio_failure) == NULL) return;
    void *avutil = open_library("avutil", LIBAVUTIL_VERSION_MAJOR, "av_frame_alloc");
    void *avcodec = open_library("avcodec", LIBAVCODEC_VERSION_MAJOR, "avcodec_find_decoder");
    void *swresample = open_library("swresample", LIBSWRESAMPLE_VERSION_MAJOR, "swr_convert");
    if (avutil == NULL || avcodec == NULL || swresample == NULL) {
        snprintf(audio_failure, sizeof audio_failure, "%s", failure);
        return;
    }
#define CFFMPEG_LOAD(library, name)                                                                 \
    if ((audio_api.name = (__typeof__(audio_api.name))dlsym(library, #name)) == NULL) {             \
        snprintf(audio_failure, sizeof audio_failure, "lib" #library " has no function " #name);   \
        return;                                                                                     \
    }
    CFFMPEG_LOAD(avutil, av_channel_layout_default)
    CFFMPEG_LOAD(avutil, av_channel_layout_uninit)
    CFFMPEG_LOAD(swresample, swr_alloc_set_opts2)
    CFFMPEG_LOAD(swresample, swr_init)
    CFFMPEG_LOAD(swresample, swr_convert)
    CFFMPEG_LOAD(swresample, swr_free)
    CFFMPEG_LOAD(swresample, swr_get_out_samples)
    CFFMPEG_LOAD(avutil, av_get_bytes_per_sample)
    CFFMPEG_LOAD(avutil, av_frame_get_buffer)
    CFFMPEG_LOAD(avutil, av_frame_make_writable)
    CFFMPEG_LOAD(avcodec, avcodec_find_encoder)
    CFFMPEG_LOAD(avcodec, avcodec_find_encoder_by_name)
    CFFMPEG_LOAD(avcodec, avcodec_send_frame)
    CFFMPEG_LOAD(avcodec, avcodec_receive_packet)
    CFFMPEG_LOAD(avcodec, av_packet_unref)
#undef CFFMPEG_LOAD
    audio_loaded = &audio_api;
}

const cffmpeg_audio_api *cffmpeg_load_audio(char *error, size_t size) {
    pthread_once(&audio_once, load_audio);
    if (audio_loaded == NULL && size > 0) snprintf(error, size, "%s", audio_failure);
    return audio_loaded;
}
