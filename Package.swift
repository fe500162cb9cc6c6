// swift-tools-version:6.0
import PackageDescription

#if os(Linux)
    // FFmpeg's and libsrtp2's headers are on the default include path; through pkg-config the libraries would be
    // linked too (they are opened when first used: CFFmpegLoader, CSRTPLoader).
    let ffmpegPkgConfig: String? = nil
    let srtpPkgConfig: String? = nil
#else
    let ffmpegPkgConfig: String? = "libavcodec"
    let srtpPkgConfig: String? = "libsrtp2"
#endif

let package = Package(
    name: "swift-rtp",
    // Apple platforms as far as the code needs (Synchronization's Mutex): declared, not built here; CI builds
    // and tests on Linux only.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .visionOS(.v2)],
    products: [
        .library(name: "RTP", targets: ["RTP"]),
        .library(name: "PacketCapture", targets: ["PacketCapture"]),
        .library(name: "ICE", targets: ["ICE"]),
        .library(name: "WebRTC", targets: ["WebRTC"]),
        .library(name: "WebRTCServer", targets: ["WebRTCServer"]),
        .library(name: "RTSPCapture", targets: ["RTSPCapture"]),
        .library(name: "H26x", targets: ["H26x"]),
        .library(name: "JPEG", targets: ["JPEG"]),
        .library(name: "Metadata", targets: ["Metadata"]),
        .library(name: "Audio", targets: ["Audio"]),
        .library(name: "SDP", targets: ["SDP"]),
        .library(name: "RTSP", targets: ["RTSP"]),
        .library(name: "MediaPipeline", targets: ["MediaPipeline"]),
        .library(name: "MP4", targets: ["MP4"]),
        .library(name: "RTSPClient", targets: ["RTSPClient"]),
        .library(name: "RTSPServer", targets: ["RTSPServer"]),
        .library(name: "SRTP", targets: ["SRTP"]),
        .library(name: "RTPTransport", targets: ["RTPTransport"]),
        .library(name: "VideoDecoding", targets: ["VideoDecoding"]),
        .library(name: "AudioDecoding", targets: ["AudioDecoding"]),
        .library(name: "MediaDecoding", targets: ["MediaDecoding"]),
        .library(name: "FFmpegDecoding", targets: ["FFmpegDecoding"]),
        .executable(name: "rtpdump", targets: ["rtpdump"]),
        .executable(name: "play-camera", targets: ["play-camera"]),
        .executable(name: "camera-service", targets: ["camera-service"]),
        // One import for an application: every module above, re-exported.
        .library(name: "SwiftRTP", targets: ["SwiftRTP"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.30.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
    ],
    targets: [
        // RTP and RTCP packet views, sequence tracking, reordering and receiver statistics. No dependencies.
        // libm: Double.rounded() (the wall clock) is a call to it on Linux, which executables without
        // Foundation (the fuzzers) do not link otherwise.
        .target(name: "RTP", linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
        // Session descriptions (RFC 8866) with typed H.264 / H.265 format parameters (RTP: the codec enum).
        .target(name: "SDP", dependencies: ["RTP"]),
        // Audio payloads to audio frames: G.711, L16, AAC (RFC 3640, RFC 6416), Opus; sans I/O.
        .target(name: "Audio", dependencies: ["RTP", "SDP"]),
        // RTSP messages, the `$`-interleaved framing and headers, sans I/O.
        .target(name: "RTSP", dependencies: ["SDP", "RTP", .product(name: "Crypto", package: "swift-crypto")]),
        // libsrtp2's header (pkg-config finds it on Apple platforms; on Linux it is on the default path, and
        // pkg-config would also link the library, which CSRTPLoader opens only when a receiver is made).
        .systemLibrary(
            name: "CSRTP", pkgConfig: srtpPkgConfig, providers: [.apt(["libsrtp2-dev"]), .brew(["srtp"])]),
        // libsrtp2 opened with dlopen on first use, its functions in a table.
        .target(name: "CSRTPLoader", dependencies: ["CSRTP"]),
        // SRTP / SRTCP receivers (libsrtp2): suites, SDES keys, authentication failures counted.
        .target(name: "SRTP", dependencies: ["CSRTPLoader", "RTP"]),
        // The sending road's edge (packets framed once, written per transport), and RTP without RTSP: the
        // RTPTransport protocol, UDP with hello and heartbeat, RTP in an HTTP body.
        .target(
            name: "RTPTransport",
            dependencies: [
                "RTP", "MediaPipeline",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        // The receive pipeline every source shares (sans I/O): packets of any tracks → per-track reorder buffer →
        // the depacketizer the track's format calls for → media units, dated by the sender reports given beside
        // the packets. No SwiftNIO and no capture code: sources feed it.
        .target(
            name: "MediaPipeline",
            dependencies: [
                "RTP", "SDP", "H26x", "JPEG", "Audio", "Metadata", .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]),
        // Recording: media units to fragmented MP4 (ISO BMFF), boxes written here; sans I/O but for the file
        // recorder.
        .target(
            name: "MP4",
            dependencies: [
                "RTP", "SDP", "H26x", "Audio", "MediaPipeline", .product(name: "CoreMetrics", package: "swift-metrics"),
            ]),
        // The RTSP client on SwiftNIO: TCP interleaved, UDP, RTCP receiver reports; the async RTSPSession API; a
        // session recorded to MP4 as a service (swift-service-lifecycle).
        .target(
            name: "RTSPClient",
            dependencies: [
                "RTSP", "SDP", "RTP", "H26x", "Audio", "MediaPipeline", "SRTP", "RTPTransport", "MP4",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        // The RTSP server on SwiftNIO: media sources packetized once and fanned out to clients over TCP
        // interleaved and UDP, each connection run by the sans-I/O RTSPServerStateMachine; the server, and a camera
        // relayed to it, as services (swift-service-lifecycle).
        .target(
            name: "RTSPServer",
            dependencies: [
                "RTSP", "SDP", "RTP", "H26x", "MediaPipeline", "SRTP", "RTPTransport", "MP4", "RTSPClient",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        // STUN messages (RFC 8489) and an ICE-lite agent with consent freshness (RFC 8445, RFC 7675), sans I/O.
        .target(
            name: "ICE", dependencies: ["RTP", "PacketCapture", .product(name: "Crypto", package: "swift-crypto")]),
        // OpenSSL's DTLS 1.2 with use_srtp, through a small sans-I/O shim (datagrams in and out, timers the caller's).
        .target(name: "CDTLS", linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]),
        // DTLS-SRTP (RFC 5764) for WebRTC: an identity and its fingerprint, one association per peer, SRTP keys out.
        .target(name: "DTLS", dependencies: ["CDTLS", "SRTP"]),
        // WebRTC, sans I/O: a browser's offer read, answered with a source's tracks, each viewer's ICE and DTLS.
        .target(name: "WebRTC", dependencies: ["ICE", "DTLS", "SRTP", "SDP", "RTP", "PacketCapture"]),
        // Sources served to browsers: WHEP on SwiftNIO's HTTP/1.1, every viewer on one UDP socket.
        .target(
            name: "WebRTCServer",
            dependencies: [
                "WebRTC", "ICE", "DTLS", "RTP", "RTPTransport", "RTSP", "RTSPServer", "PacketCapture", "FFmpegDecoding",
                "Audio", "AudioDecoding", "MediaPipeline", "SDP", .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        // H.264 (RFC 6184) and H.265 (RFC 7798) depacketizers, access units, parameter sets, SPS parsing, writers.
        .target(name: "H26x", dependencies: ["RTP", "CH26x"]),
        // zlib's header (the library is on every Linux and Apple system), for gzip-compressed ONVIF metadata.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // ONVIF metadata documents (plain and gzip) and any other payload handed on as raw units.
        .target(name: "Metadata", dependencies: ["RTP", "CZlib"]),
        // The Motion JPEG depacketizer (RFC 2435): JPEG pictures, as access units, with their headers rebuilt.
        .target(name: "JPEG", dependencies: ["RTP", "H26x"]),
        // The start-code scan (and the copy that is also the scan), vectorized in C: AVX2 or SSE2 on x86, NEON on AArch64.
        .target(name: "CH26x"),
        // The decoder protocol, I420 frames, the frame pool and the stock frame sinks. No C dependencies.
        .target(
            name: "VideoDecoding",
            dependencies: ["H26x", "RTP", .product(name: "Crypto", package: "swift-crypto")]),
        // The AudioDecoder protocol, PCM frames and their sinks.
        .target(name: "AudioDecoding", dependencies: ["Audio", "RTP"]),
        // FFmpeg's headers (pkg-config finds them on Apple platforms; on Linux they are on the default path, and
        // pkg-config would also link the libraries, which CFFmpegLoader opens only when a decoder is made).
        .systemLibrary(
            name: "CFFmpeg", pkgConfig: ffmpegPkgConfig,
            providers: [
                .apt(["libavcodec-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev"]), .brew(["ffmpeg"]),
            ]),
        // libavcodec / libavutil / libswscale (and, for audio, libswresample) opened with dlopen on first use,
        // their functions in a table.
        .target(name: "CFFmpegLoader", dependencies: ["CFFmpeg"]),
        // Decoding on top of any source: frames and PCM from any sequence of access units or media units (a
        // session's, a capture's), one decoder per track, dated from their units.
        .target(
            name: "MediaDecoding",
            dependencies: [
                "MediaPipeline", "VideoDecoding", "AudioDecoding", "H26x", "Audio", "Metadata", "SDP", "RTP",
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]),
        // The FFmpeg (libavcodec) implementations of VideoDecoder and AudioDecoder.
        .target(
            name: "FFmpegDecoding",
            dependencies: ["VideoDecoding", "AudioDecoding", "Audio", "SDP", "CFFmpegLoader", "H26x"]),
        // pcap / pcapng readers, link layers, IPv4/IPv6 (with fragment reassembly), UDP, and the datagrams'
        // RTP streams sorted into tracks of received packets (what a MediaPipeline takes).
        .target(name: "PacketCapture", dependencies: ["RTP"]),
        // Captures of RTSP sessions: TCP reassembled and framed, the RTP interleaved in the RTSP connection
        // and the DESCRIBE answer's SDP read as they pass (a datagram source for CaptureTracks).
        .target(name: "RTSPCapture", dependencies: ["PacketCapture", "RTSP", "SDP", "RTP"]),
        // What the rtpdump subcommands compute and print, as a library so that tests call it in-process.
        .target(
            name: "RTPDumpCore",
            dependencies: [
                "RTP", "PacketCapture", "RTSPCapture", "H26x", "Audio", "Metadata", "MP4", "SDP", "RTSP",
                "MediaPipeline", "RTSPClient", "RTSPServer", "SRTP",
                "VideoDecoding", "AudioDecoding", "FFmpegDecoding", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]),
        .executableTarget(
            name: "rtpdump",
            dependencies: [
                "RTPDumpCore", "RTSPCapture", "SDP", "RTSP", "MediaPipeline", "RTSPClient", "SRTP", "FFmpegDecoding",
                "Audio", "PacketCapture", "MP4", "RTSPServer", "WebRTCServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            // The Swift runtime and FoundationEssentials linked in, as a command-line tool is shipped: the
            // dynamic loader then has no Swift libraries to map and relocate, and start-up takes 5.9 instead
            // of 9.2 ms of CPU (perf stat -r 10, `rtpdump extract --help`; Docs/Performance.md). Nothing may
            // use the rest of Foundation: it would link ICU (CommandLineTests.rtpdumpCarriesNoICU).
            swiftSettings: [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux]))],
            linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux]))]
        ),
        // The one import: every library module re-exported (`@_exported`).
        .target(
            name: "SwiftRTP",
            dependencies: [
                "Audio", "AudioDecoding", "FFmpegDecoding", "H26x", "JPEG", "MediaDecoding", "Metadata",
                "MediaPipeline", "MP4", "PacketCapture", "RTP", "RTSPCapture",
                "RTPTransport", "RTSP", "RTSPClient", "RTSPServer", "SDP", "SRTP", "VideoDecoding", "WebRTC",
                "WebRTCServer",
            ]),
        // The README's "Running unattended": a camera relayed and recorded, shut down in order on SIGTERM; the tests
        // run it and send the signal.
        .executableTarget(
            name: "camera-service",
            dependencies: [
                "SwiftRTP", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The README's "Playing a camera" as a program, on the public API only, through the one import; the
        // tests build and run it.
        .executableTarget(
            name: "play-camera",
            dependencies: ["SwiftRTP", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        // What the tests share: running programs (rtpdump, tshark, the test servers) and reading them.
        .target(
            name: "TestSupport", dependencies: [.product(name: "Logging", package: "swift-log")],
            path: "Tests/TestSupport"),
        .testTarget(name: "RTPTests", dependencies: ["RTP", "TestSupport"]),
        // A downstream package's view: the one import alone.
        .testTarget(name: "SwiftRTPTests", dependencies: ["SwiftRTP"]),
        .testTarget(name: "H26xTests", dependencies: ["H26x", "MediaPipeline", "RTP", "TestSupport"]),
        .testTarget(name: "SDPTests", dependencies: ["SDP", "RTP"]),
        .testTarget(
            name: "MP4Tests",
            dependencies: [
                "MP4", "MediaPipeline", "PacketCapture", "H26x", "Audio", "SDP", "RTP", "TestSupport",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]),
        .testTarget(
            name: "MetadataTests",
            dependencies: [
                "Metadata", "MediaPipeline", "MediaDecoding", "PacketCapture", "SDP", "RTP", "VideoDecoding",
            ]),
        .testTarget(
            name: "JPEGTests",
            dependencies: [
                "JPEG", "H26x", "MediaPipeline", "MediaDecoding", "FFmpegDecoding", "VideoDecoding", "PacketCapture",
                "SDP",
                "RTP", "TestSupport",
            ]),
        .testTarget(
            name: "AudioTests",
            dependencies: [
                "Audio", "AudioDecoding", "FFmpegDecoding", "MediaDecoding", "MediaPipeline", "SDP", "RTP",
                "PacketCapture",
                "TestSupport", "VideoDecoding",
            ]),
        .testTarget(
            name: "MediaPipelineTests",
            dependencies: [
                "MediaPipeline", "TestSupport", "PacketCapture", "RTP", "H26x", "JPEG", "SDP", "Audio", "SRTP",
            ]),
        .testTarget(name: "RTSPTests", dependencies: ["RTSP", "RTP", "SDP"]),
        .testTarget(name: "ICETests", dependencies: ["ICE", "RTP", "PacketCapture"]),
        .testTarget(name: "DTLSTests", dependencies: ["DTLS", "SRTP", "RTP"]),
        .testTarget(
            name: "WebRTCTests", dependencies: ["WebRTC", "ICE", "DTLS", "SRTP", "SDP", "RTP", "PacketCapture"]),
        .testTarget(name: "SRTPTests", dependencies: ["SRTP", "RTP"]),
        .testTarget(
            name: "RTPTransportTests",
            dependencies: [
                "TestSupport", "RTPTransport", "MediaPipeline", "MediaDecoding", "H26x", "RTP", "VideoDecoding",
                "FFmpegDecoding",
            ]),
        .testTarget(
            name: "RTSPClientTests",
            dependencies: [
                "TestSupport",
                "RTSPClient", "RTSPServer", "MP4", "RTSP", "RTP", "SDP", "H26x", "Audio", "MediaPipeline",
                "MediaDecoding", "VideoDecoding",
                "AudioDecoding", "FFmpegDecoding", "PacketCapture", "SwiftRTP", "ICE",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(name: "VideoDecodingTests", dependencies: ["VideoDecoding", "H26x"]),
        .testTarget(name: "PacketCaptureTests", dependencies: ["TestSupport", "PacketCapture", "RTP"]),
        .testTarget(
            name: "RTPDumpCoreTests",
            dependencies: [
                "TestSupport",
                "RTPDumpCore", "PacketCapture", "RTSPCapture", "RTP", "H26x", "SDP", "MediaPipeline", "RTSPClient",
                "VideoDecoding", "FFmpegDecoding", "MP4",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
