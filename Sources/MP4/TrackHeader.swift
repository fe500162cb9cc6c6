/// What a `trak` box says of its track, besides its samples: `tkhd`'s ID, `mdhd`'s timescale, `hdlr`'s kind and
/// the first sample entry of `stsd` (its code, picture size or audio format, and configuration box).
struct TrackHeader {
    var id: UInt32 = 0
    var kind: MP4Index.Track.Kind = .other
    var codec = ""
    var timescale: UInt32 = 0
    var configuration: [UInt8] = []
    var width = 0
    var height = 0
    var channels = 0
    var sampleRate = 0
    var presentationStart: Int64 = 0

    /// The boxes of `trak` read into a header, and the `stbl` box that holds its sample tables.
    static func read(_ trak: Box) throws(MP4Error) -> (TrackHeader, sampleTable: Box?) {
        var header = TrackHeader()
        var trakReader = trak.reader(in: "moov")
        let children = try trakReader.children()
        guard let tkhd = children.first("tkhd") else { throw trakReader.fail("has no tkhd") }
        var tkhdReader = tkhd.reader(in: trakReader.path)
        let (tkhdVersion, _) = try tkhdReader.versionAndFlags()
        try tkhdReader.skip(tkhdVersion == 1 ? 16 : 8)  // creation and modification times
        header.id = try tkhdReader.u32()

        if let edts = children.first("edts") {
            var edtsReader = edts.reader(in: trakReader.path)
            if let elst = try edtsReader.children().first("elst") {
                header.presentationStart = try Self.presentationStart(elst, in: edtsReader.path)
            }
        }
        guard let mdia = children.first("mdia") else { throw trakReader.fail("has no mdia") }
        var mdiaReader = mdia.reader(in: trakReader.path)
        let mdiaChildren = try mdiaReader.children()
        guard let mdhd = mdiaChildren.first("mdhd") else { throw mdiaReader.fail("has no mdhd") }
        var mdhdReader = mdhd.reader(in: mdiaReader.path)
        let (mdhdVersion, _) = try mdhdReader.versionAndFlags()
        try mdhdReader.skip(mdhdVersion == 1 ? 16 : 8)
        header.timescale = try mdhdReader.u32()
        guard header.timescale > 0 else { throw mdhdReader.fail("gives a timescale of 0") }
        if let hdlr = mdiaChildren.first("hdlr") {
            var hdlrReader = hdlr.reader(in: mdiaReader.path)
            try hdlrReader.skip(8)  // version, flags, pre_defined
            switch try hdlrReader.u32() {
            case Box.code("vide"): header.kind = .video
            case Box.code("soun"): header.kind = .audio
            default: header.kind = .other
            }
        }
        guard let minf = mdiaChildren.first("minf") else { return (header, nil) }
        var minfReader = minf.reader(in: mdiaReader.path)
        guard let stbl = try minfReader.children().first("stbl") else { return (header, nil) }
        var stblReader = stbl.reader(in: minfReader.path)
        if let stsd = try stblReader.children().first("stsd") {
            try header.readSampleEntry(stsd, in: stblReader.path)
        }
        return (header, stbl)
    }

    /// The media time of the first edit that is not empty (`elst`, section 8.6.6): where presentation starts.
    private static func presentationStart(_ elst: Box, in parent: String) throws(MP4Error) -> Int64 {
        var reader = elst.reader(in: parent)
        let (version, _) = try reader.versionAndFlags()
        for _ in 0..<(try reader.count(entriesOf: version == 1 ? 20 : 12, limit: 1 << 16)) {
            let mediaTime: Int64
            if version == 1 {
                _ = try reader.u64()
                mediaTime = Int64(bitPattern: try reader.u64())
            } else {
                _ = try reader.u32()
                mediaTime = Int64(Int32(bitPattern: try reader.u32()))
            }
            try reader.skip(4)  // media rate
            if mediaTime >= 0 { return mediaTime }
        }
        return 0
    }

    /// The first sample entry of `stsd`: a visual one (ISO/IEC 14496-12 section 12.1.3: 78 bytes before its
    /// boxes) or an audio one (12.2.3: 28 bytes, more in QuickTime's versions 1 and 2).
    private mutating func readSampleEntry(_ stsd: Box, in parent: String) throws(MP4Error) {
        var reader = stsd.reader(in: parent)
        try reader.skip(4)
        guard try reader.u32() > 0 else { throw reader.fail("has no sample entry") }
        guard let entry = try reader.children().first else { return }
        codec = entry.name
        var entryReader = entry.reader(in: reader.path)
        try entryReader.skip(8)  // reserved, data_reference_index
        switch kind {
        case .video:
            try entryReader.skip(16)
            width = Int(try entryReader.u16())
            height = Int(try entryReader.u16())
            try entryReader.skip(50)  // resolutions, reserved, frame count, compressor name, depth, pre_defined
        case .audio:
            let version = try entryReader.u16()
            try entryReader.skip(6)
            channels = Int(try entryReader.u16())
            try entryReader.skip(6)  // sample size, pre_defined, reserved
            sampleRate = Int(try entryReader.u32() >> 16)
            if version == 1 { try entryReader.skip(16) } else if version == 2 { try entryReader.skip(36) }
        case .other:
            return
        }
        guard entryReader.remaining > 0 else { return }
        let boxes = try entryReader.children()
        let config = boxes.first("avcC") ?? boxes.first("hvcC") ?? boxes.first("esds") ?? boxes.first("dOps")
        configuration = config.map { Array($0.body) } ?? []
    }
}
