// swift-tools-version:6.0
// libFuzzer targets. Build one with:
//   swift build --package-path Fuzz -c debug --sanitize fuzzer --sanitize address -Xswiftc -sanitize=fuzzer,address \
//       --product FuzzRTPPacket
// (swiftc keeps only the last -sanitize flag: without the combined one the Swift code has no coverage)
// or run them all with Fuzz/run.sh.
import PackageDescription

let package = Package(
    name: "Fuzz",
    dependencies: [.package(name: "swift-rtp", path: "..")],
    targets: [
        .executableTarget(name: "FuzzRTPPacket", dependencies: [.product(name: "RTP", package: "swift-rtp")]),
        .executableTarget(name: "FuzzRTCP", dependencies: [.product(name: "RTP", package: "swift-rtp")]),
        .executableTarget(
            name: "FuzzWebRTCOffer",
            dependencies: [.product(name: "WebRTC", package: "swift-rtp"), .product(name: "SDP", package: "swift-rtp")]),
        .executableTarget(
            name: "FuzzSTUN",
            dependencies: [
                .product(name: "ICE", package: "swift-rtp"), .product(name: "RTP", package: "swift-rtp"),
                .product(name: "PacketCapture", package: "swift-rtp"),
            ]),
        .executableTarget(
            name: "FuzzCapture",
            dependencies: [
                .product(name: "RTP", package: "swift-rtp"), .product(name: "PacketCapture", package: "swift-rtp"),
            ]),
        // The packet-script player both depacketizer targets use, and the chunking the framer targets use.
        .target(
            name: "FuzzSupport",
            dependencies: [
                .product(name: "RTP", package: "swift-rtp"), .product(name: "H26x", package: "swift-rtp"),
                .product(name: "MediaPipeline", package: "swift-rtp"),
            ]),
        .executableTarget(
            name: "FuzzH264Depacketizer",
            dependencies: [
                "FuzzSupport", .product(name: "H26x", package: "swift-rtp"),
                .product(name: "MediaPipeline", package: "swift-rtp"),
            ]),
        .executableTarget(
            name: "FuzzHEVCDepacketizer",
            dependencies: [
                "FuzzSupport", .product(name: "H26x", package: "swift-rtp"),
                .product(name: "MediaPipeline", package: "swift-rtp"),
            ]),
        .executableTarget(
            name: "FuzzSPS",
            dependencies: [.product(name: "H26x", package: "swift-rtp"), .product(name: "RTP", package: "swift-rtp")]),
        .executableTarget(
            name: "FuzzRTSPFramer", dependencies: ["FuzzSupport", .product(name: "RTSP", package: "swift-rtp")]),
        .executableTarget(
            name: "FuzzPacketizer",
            dependencies: [
                .product(name: "H26x", package: "swift-rtp"), .product(name: "JPEG", package: "swift-rtp"),
                .product(name: "RTP", package: "swift-rtp"),
            ]),
        .executableTarget(
            name: "FuzzRTSPServer",
            dependencies: [
                "FuzzSupport", .product(name: "RTSP", package: "swift-rtp"), .product(name: "RTP", package: "swift-rtp"),
                .product(name: "SDP", package: "swift-rtp"),
            ]),
        .executableTarget(name: "FuzzSDP", dependencies: [.product(name: "SDP", package: "swift-rtp")]),
        .executableTarget(name: "FuzzWWWAuthenticate", dependencies: [.product(name: "RTSP", package: "swift-rtp")]),
        .executableTarget(
            name: "FuzzLengthPrefixed",
            dependencies: ["FuzzSupport", .product(name: "RTPTransport", package: "swift-rtp")]),
        .executableTarget(name: "FuzzSRTP", dependencies: [.product(name: "SRTP", package: "swift-rtp")]),
        .executableTarget(
            name: "FuzzPipeline",
            dependencies: [
                .product(name: "RTP", package: "swift-rtp"), .product(name: "H26x", package: "swift-rtp"),
                .product(name: "MediaPipeline", package: "swift-rtp"),
            ]),
        .executableTarget(
            name: "FuzzRTSPClient",
            dependencies: [.product(name: "RTSP", package: "swift-rtp"), .product(name: "RTP", package: "swift-rtp")]),
        .executableTarget(
            name: "FuzzRecorder",
            dependencies: [
                .product(name: "MP4", package: "swift-rtp"), .product(name: "MediaPipeline", package: "swift-rtp"),
                .product(name: "RTP", package: "swift-rtp"), .product(name: "SDP", package: "swift-rtp"),
                .product(name: "RTSP", package: "swift-rtp"),
            ]),
        .executableTarget(name: "FuzzMP4Index", dependencies: [.product(name: "MP4", package: "swift-rtp")]),
        .executableTarget(
            name: "FuzzDataDepacketizer",
            dependencies: [.product(name: "Metadata", package: "swift-rtp"), .product(name: "RTP", package: "swift-rtp")]),
        .executableTarget(
            name: "FuzzJPEGDepacketizer",
            dependencies: [
                .product(name: "JPEG", package: "swift-rtp"), .product(name: "H26x", package: "swift-rtp"),
                .product(name: "RTP", package: "swift-rtp"),
            ]),
        .executableTarget(
            name: "FuzzAudioDepacketizer",
            dependencies: [
                .product(name: "Audio", package: "swift-rtp"), .product(name: "RTP", package: "swift-rtp"),
                .product(name: "SDP", package: "swift-rtp"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
