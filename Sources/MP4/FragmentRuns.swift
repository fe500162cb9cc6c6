/// The samples of one `moof` (ISO/IEC 14496-12 section 8.8): each `traf`'s runs (`trun`), with the defaults of
/// its `tfhd` and of the track's `trex`, the base decode time of `tfdt` (or the track's running time), and the
/// data offsets resolved to offsets in the file.
struct FragmentRuns {
    /// A track's defaults (`trex`).
    struct Defaults {
        var duration: UInt32 = 0
        var size: UInt32 = 0
        var flags: UInt32 = 0
    }

    static let nonSyncFlag: UInt32 = 0x1_0000

    /// Adds the samples of the `moof` at `moofOffset` in the file to `samples` (one array per track, by index in
    /// `trackIDs`); `nextDecodeTime` carries each track's time from fragment to fragment.
    static func read(
        _ moof: Box, at moofOffset: UInt64, trackIDs: [UInt32], defaults: [UInt32: Defaults],
        into samples: inout [[MP4Index.Sample]], nextDecodeTime: inout [Int64], limit: Int
    ) throws(MP4Error) {
        var reader = moof.reader(in: "")
        var previousEnd = moofOffset
        for traf in try reader.children().all("traf") {
            var trafReader = traf.reader(in: "moof")
            let boxes = try trafReader.children()
            guard let tfhd = boxes.first("tfhd") else { throw trafReader.fail("has no tfhd") }
            var h = tfhd.reader(in: trafReader.path)
            let (_, flags) = try h.versionAndFlags()
            let trackID = try h.u32()
            guard let track = trackIDs.firstIndex(of: trackID) else {
                throw h.fail("names track \(trackID), which the moov does not declare")
            }
            var d = defaults[trackID] ?? Defaults()
            var base = flags & 0x2_0000 != 0 ? moofOffset : previousEnd
            if flags & 0x01 != 0 { base = try h.u64() }
            if flags & 0x02 != 0 { try h.skip(4) }  // sample description index
            if flags & 0x08 != 0 { d.duration = try h.u32() }
            if flags & 0x10 != 0 { d.size = try h.u32() }
            if flags & 0x20 != 0 { d.flags = try h.u32() }
            if let tfdt = boxes.first("tfdt") {
                var t = tfdt.reader(in: trafReader.path)
                let (version, _) = try t.versionAndFlags()
                let time = version == 1 ? try t.u64() : UInt64(try t.u32())
                guard let decodeTime = Int64(exactly: time) else { throw t.fail("gives a decode time past 2^63") }
                nextDecodeTime[track] = decodeTime
            }
            var dataEnd = base
            for trun in boxes.all("trun") {
                var r = trun.reader(in: trafReader.path)
                let (version, runFlags) = try r.versionAndFlags()
                let fieldsPerSample = [0x100, 0x200, 0x400, 0x800].filter { runFlags & UInt32($0) != 0 }.count
                let count = try r.count(entriesOf: max(1, fieldsPerSample * 4), limit: limit)
                var offset = dataEnd
                if runFlags & 0x01 != 0 {
                    let relative = Int64(Int32(bitPattern: try r.u32()))
                    offset = UInt64(clamping: Int64(clamping: base) &+ relative)
                }
                let firstFlags = runFlags & 0x04 != 0 ? try r.u32() : nil
                guard samples[track].count <= limit - count else {
                    throw r.fail("brings track \(trackID) past the limit of \(limit) samples")
                }
                for i in 0..<count {
                    let duration = runFlags & 0x100 != 0 ? try r.u32() : d.duration
                    let size = runFlags & 0x200 != 0 ? try r.u32() : d.size
                    var sampleFlags = runFlags & 0x400 != 0 ? try r.u32() : d.flags
                    if i == 0, let firstFlags { sampleFlags = firstFlags }
                    var composition: Int32 = 0
                    if runFlags & 0x800 != 0 {
                        let raw = try r.u32()
                        composition = version == 0 ? Int32(clamping: raw) : Int32(bitPattern: raw)
                    }
                    samples[track].append(
                        MP4Index.Sample(
                            offset: offset, size: size, decodeTime: nextDecodeTime[track],
                            compositionOffset: composition, duration: duration,
                            isSync: sampleFlags & nonSyncFlag == 0))
                    nextDecodeTime[track] &+= Int64(duration)
                    offset &+= UInt64(size)
                }
                dataEnd = offset
            }
            previousEnd = dataEnd
        }
    }

    /// The `trex` defaults of `mvex`, by track ID.
    static func defaults(in mvex: Box?) throws(MP4Error) -> [UInt32: Defaults] {
        guard let mvex else { return [:] }
        var reader = mvex.reader(in: "moov")
        var defaults: [UInt32: Defaults] = [:]
        for trex in try reader.children().all("trex") {
            var r = trex.reader(in: reader.path)
            try r.skip(4)
            let id = try r.u32()
            try r.skip(4)  // sample description index
            defaults[id] = Defaults(duration: try r.u32(), size: try r.u32(), flags: try r.u32())
        }
        return defaults
    }
}
