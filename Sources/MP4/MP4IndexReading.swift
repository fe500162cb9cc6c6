import RTP

/// Where an index is read from: the file's size, and its bytes at an offset (a file read with `pread`, or bytes
/// in memory).
protocol MP4ByteSource {
    var size: UInt64 { get }
    func read(at offset: UInt64, count: Int) throws(MP4Error) -> [UInt8]
}

extension MP4Index {
    /// The index of a whole file held in memory (a small one, or a test's).
    ///
    /// - Throws: ``MP4Error`` `.invalidFile` when its boxes do not hold together or pass `limits`.
    public init(bytes: [UInt8], limits: Limits = Limits()) throws(MP4Error) {
        try self.init(reading: InMemoryBytes(bytes: bytes), limits: limits)
    }

    /// Reads the top-level boxes one header at a time, reading `moov`, `moof` and `prft` whole and stepping over
    /// everything else (`mdat`'s media is not read).
    init(reading source: some MP4ByteSource, limits: Limits) throws(MP4Error) {
        var headers: [TrackHeader] = []
        var samples: [[Sample]] = []
        var defaults: [UInt32: FragmentRuns.Defaults] = [:]
        var nextDecodeTime: [Int64] = []
        var anchors: [WallClockAnchor] = []
        var truncated = false
        var moovSeen = false
        var offset: UInt64 = 0
        while source.size - offset >= 8 {
            let head = try source.read(at: offset, count: Int(min(16, source.size - offset)))
            var r = BoxReader(head[...], path: "the file's box at \(offset)")
            var boxSize = UInt64(try r.u32())
            let type = try r.u32()
            var headerSize: UInt64 = 8
            if boxSize == 1 {
                boxSize = try r.u64()
                headerSize = 16
            } else if boxSize == 0 {
                boxSize = source.size - offset
            }
            guard boxSize >= headerSize else { throw r.fail("says it is \(boxSize) bytes, less than its header") }
            guard boxSize <= source.size - offset else {
                truncated = true
                break
            }
            let bodyOffset = offset + headerSize
            let bodySize = boxSize - headerSize
            func body() throws(MP4Error) -> Box {
                guard bodySize <= UInt64(limits.maxHeaderBoxBytes) else {
                    throw r.fail(
                        "a '\(Box.name(type))' of \(bodySize) bytes, past the limit of \(limits.maxHeaderBoxBytes)")
                }
                return Box(type: type, body: try source.read(at: bodyOffset, count: Int(bodySize))[...])
            }
            switch type {
            case Box.code("moov"):
                guard !moovSeen else { throw r.fail("a second moov") }
                moovSeen = true
                var moov = try body().reader(in: "")
                let children = try moov.children()
                let traks = children.all("trak")
                guard traks.count <= limits.maxTracks else {
                    throw moov.fail("has \(traks.count) tracks, more than the limit of \(limits.maxTracks)")
                }
                for trak in traks {
                    let (header, stbl) = try TrackHeader.read(trak)
                    guard !headers.contains(where: { $0.id == header.id }) else {
                        throw moov.fail("declares track \(header.id) twice")
                    }
                    headers.append(header)
                    samples.append(
                        try stbl.map { stbl throws(MP4Error) in
                            try SampleTables.samples(of: stbl, in: "moov/trak", limit: limits.maxSamplesPerTrack)
                        } ?? [])
                    nextDecodeTime.append(0)
                }
                defaults = try FragmentRuns.defaults(in: children.first("mvex"))
            case Box.code("moof"):
                guard moovSeen else { throw r.fail("a moof before any moov") }
                try FragmentRuns.read(
                    try body(), at: offset, trackIDs: headers.map(\.id), defaults: defaults, into: &samples,
                    nextDecodeTime: &nextDecodeTime, limit: limits.maxSamplesPerTrack)
            case Box.code("prft"):
                var p = try body().reader(in: "prft")
                let (version, _) = try p.versionAndFlags()
                let trackID = try p.u32()
                let ntp = try p.u64()
                let media = version == 1 ? try p.u64() : UInt64(try p.u32())
                if let mediaTime = Int64(exactly: media) {
                    anchors.append(
                        WallClockAnchor(trackID: trackID, wallClock: WallClockTime(ntp: ntp), mediaTime: mediaTime))
                }
            default:
                break
            }
            offset += boxSize
        }
        guard moovSeen else {
            throw MP4Error(
                .invalidFile, truncated ? "the file ends before its moov box does" : "the file has no moov box")
        }
        guard !headers.isEmpty else { throw MP4Error(.invalidFile, "its moov declares no track") }
        // A fragment whose media the file does not hold whole (cut while being written): its samples go.
        let end = source.size
        for i in samples.indices {
            let whole = samples[i].prefix { $0.offset <= end && UInt64($0.size) <= end - $0.offset }
            if whole.count < samples[i].count {
                truncated = true
                samples[i] = Array(whole)
            }
        }
        self.init(
            tracks: zip(headers, samples).map { Track(header: $0, samples: $1) }, wallClockAnchors: anchors,
            isTruncated: truncated)
    }
}

struct InMemoryBytes: MP4ByteSource {
    let bytes: [UInt8]
    var size: UInt64 { UInt64(bytes.count) }

    func read(at offset: UInt64, count: Int) throws(MP4Error) -> [UInt8] {
        guard offset <= size, UInt64(count) <= size - offset else {
            throw MP4Error(.readFailed, "\(count) bytes at \(offset) are past the end of \(size)")
        }
        return Array(bytes[Int(offset)..<(Int(offset) + count)])
    }
}
