// swift-tools-version:6.1
// Benchmarks, kept out of the main package so that `swift test` does not build them.
// Run: cd Benchmarks && swift package --allow-writing-to-package-directory benchmark
import PackageDescription

let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "swift-rtp", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        // Many live sessions through the library's API for many minutes, sampling resident memory
        // (soak-sessions.sh runs it against the real server).
        .executableTarget(
            name: "soak-sessions",
            dependencies: [.product(name: "RTSPClient", package: "swift-rtp")],
            path: "Soak"
        ),
        .executableTarget(
            name: "RTPBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "RTP", package: "swift-rtp"),
                .product(name: "PacketCapture", package: "swift-rtp"),
                .product(name: "H26x", package: "swift-rtp"),
                .product(name: "MediaPipeline", package: "swift-rtp"),
                .product(name: "MP4", package: "swift-rtp"),
                .product(name: "RTSPServer", package: "swift-rtp"),
                .product(name: "Audio", package: "swift-rtp"),
                .product(name: "SDP", package: "swift-rtp"),
                .product(name: "VideoDecoding", package: "swift-rtp"),
                .product(name: "FFmpegDecoding", package: "swift-rtp"),
                .product(name: "AudioDecoding", package: "swift-rtp"),
            ],
            path: "Benchmarks/RTPBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ]
)
