/// The samples of a plain (not fragmented) track, from the tables of its `stbl` box (ISO/IEC 14496-12 section
/// 8.6-8.7): sizes (`stsz`), chunks (`stsc` and `stco` / `co64`), durations (`stts`), composition offsets (`ctts`)
/// and keyframes (`stss`; every sample when it is absent). Tables that disagree on the count are refused.
enum SampleTables {
    static func samples(of stbl: Box, in parent: String, limit: Int) throws(MP4Error) -> [MP4Index.Sample] {
        var reader = stbl.reader(in: parent)
        let boxes = try reader.children()
        let path = reader.path
        guard let stsz = boxes.first("stsz") else {
            guard boxes.first("stz2") == nil else {
                throw MP4Error(.invalidFile, "\(path): compact sample sizes (stz2) are not read; remux with FFmpeg")
            }
            return []  // a track of a fragmented file: its samples are in the fragments
        }
        let sizes = try Self.sizes(stsz, in: path, limit: limit)
        guard !sizes.isEmpty else { return [] }
        let offsets = try Self.offsets(boxes, sizes: sizes, in: path)
        let durations = try Self.runs(boxes.first("stts"), in: path, count: sizes.count, signed: false)
        let composition = try Self.runs(boxes.first("ctts"), in: path, count: sizes.count, signed: true)
        var samples: [MP4Index.Sample] = []
        samples.reserveCapacity(sizes.count)
        var time: Int64 = 0
        let allSync = boxes.first("stss") == nil
        for i in sizes.indices {
            let duration = durations.map { UInt32(truncatingIfNeeded: $0[i]) } ?? 0
            samples.append(
                MP4Index.Sample(
                    offset: offsets[i], size: sizes[i], decodeTime: time,
                    compositionOffset: composition.map { Int32(truncatingIfNeeded: $0[i]) } ?? 0, duration: duration,
                    isSync: allSync))
            time += Int64(duration)
        }
        if let stss = boxes.first("stss") {
            var r = stss.reader(in: path)
            try r.skip(4)
            for _ in 0..<(try r.count(entriesOf: 4, limit: sizes.count)) {
                let number = Int(try r.u32())
                guard number >= 1, number <= samples.count else {
                    throw r.fail("names sample \(number) of \(samples.count)")
                }
                samples[number - 1].isSync = true
            }
        }
        return samples
    }

    private static func sizes(_ stsz: Box, in path: String, limit: Int) throws(MP4Error) -> [UInt32] {
        var r = stsz.reader(in: path)
        try r.skip(4)
        let fixed = try r.u32()
        if fixed != 0 {
            let count = Int(try r.u32())
            guard count <= limit else { throw r.fail("has \(count) samples, more than the limit of \(limit)") }
            return [UInt32](repeating: fixed, count: count)
        }
        let count = try r.count(entriesOf: 4, limit: limit)
        var sizes: [UInt32] = []
        sizes.reserveCapacity(count)
        for _ in 0..<count { sizes.append(try r.u32()) }
        return sizes
    }

    /// Each sample's offset in the file: the chunks' offsets, each chunk's samples one after the other.
    private static func offsets(_ boxes: [Box], sizes: [UInt32], in path: String) throws(MP4Error) -> [UInt64] {
        let sampleCount = sizes.count
        var chunkOffsets: [UInt64] = []
        if let stco = boxes.first("stco") {
            var r = stco.reader(in: path)
            try r.skip(4)
            for _ in 0..<(try r.count(entriesOf: 4, limit: sampleCount)) { chunkOffsets.append(UInt64(try r.u32())) }
        } else if let co64 = boxes.first("co64") {
            var r = co64.reader(in: path)
            try r.skip(4)
            for _ in 0..<(try r.count(entriesOf: 8, limit: sampleCount)) { chunkOffsets.append(try r.u64()) }
        } else {
            throw MP4Error(.invalidFile, "\(path): has samples but no chunk offsets (stco or co64)")
        }
        guard let stsc = boxes.first("stsc") else { throw MP4Error(.invalidFile, "\(path): has no stsc") }
        var r = stsc.reader(in: path)
        try r.skip(4)
        var entries: [(firstChunk: Int, samplesPerChunk: Int)] = []
        for _ in 0..<(try r.count(entriesOf: 12, limit: max(1, chunkOffsets.count))) {
            let first = Int(try r.u32())
            let perChunk = Int(try r.u32())
            try r.skip(4)  // sample description index
            guard first >= 1, first > (entries.last?.firstChunk ?? 0) else {
                throw r.fail("chunk runs are not in rising order")
            }
            entries.append((first, perChunk))
        }
        var offsets: [UInt64] = []
        offsets.reserveCapacity(sampleCount)
        for (index, entry) in entries.enumerated() {
            let end = index + 1 < entries.count ? entries[index + 1].firstChunk : chunkOffsets.count + 1
            var chunk = entry.firstChunk
            while chunk < end, chunk <= chunkOffsets.count, offsets.count < sampleCount {
                var offset = chunkOffsets[chunk - 1]
                for _ in 0..<entry.samplesPerChunk where offsets.count < sampleCount {
                    offsets.append(offset)
                    offset &+= UInt64(sizes[offsets.count - 1])
                }
                chunk += 1
            }
        }
        guard offsets.count == sampleCount else {
            throw MP4Error(.invalidFile, "\(path): its chunks hold \(offsets.count) of its \(sampleCount) samples")
        }
        return offsets
    }

    /// A table of (count, value) runs, expanded to one value per sample; nil when the box is absent.
    private static func runs(_ box: Box?, in path: String, count: Int, signed: Bool) throws(MP4Error) -> [Int64]? {
        guard let box else { return nil }
        var r = box.reader(in: path)
        let (version, _) = try r.versionAndFlags()
        var values: [Int64] = []
        values.reserveCapacity(count)
        for _ in 0..<(try r.count(entriesOf: 8, limit: count)) {
            let runLength = Int(try r.u32())
            let raw = try r.u32()
            let value = signed && version == 1 ? Int64(Int32(bitPattern: raw)) : Int64(raw)
            guard runLength <= count - values.count else { throw r.fail("covers more than its \(count) samples") }
            values.append(contentsOf: repeatElement(value, count: runLength))
        }
        guard values.count == count else { throw r.fail("covers \(values.count) of its \(count) samples") }
        return values
    }
}
