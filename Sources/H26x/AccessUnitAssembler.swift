/// Collects NAL units into access units, deciding where one picture ends and the next begins.
///
/// An access unit ends at the RTP marker bit (once it holds a picture), at a timestamp change, and before
/// a NAL unit that can only start a new one when the current already holds a picture: an access unit
/// delimiter, a parameter set, a prefix SEI, or a slice that is the first of its picture
/// (first_mb_in_slice == 0 in H.264, first_slice_segment_in_pic_flag in H.265), for cameras that never
/// set the marker.
struct AccessUnitAssembler: Sendable {
    let codec: VideoCodec
    private(set) var parameterSets: ParameterSets
    /// NAL units larger than this are dropped as damaged.
    let maxNALSize: Int
    /// Access units larger than this are cut: the rest of the picture is dropped and counted as loss.
    let maxAccessUnitSize: Int

    private var buffer: [UInt8] = []
    private var ranges: [Range<Int>] = []
    private var nalStart: Int?
    private(set) var timestamp: UInt64?
    private var hasPicture = false
    private var keyframe = false
    private var parameterSetsChanged = false
    private(set) var lostPackets = 0
    /// NAL units dropped for size.
    private(set) var oversizedNALs = 0

    init(codec: VideoCodec, parameterSets: ParameterSets, maxNALSize: Int, maxAccessUnitSize: Int) {
        self.codec = codec
        self.parameterSets = parameterSets
        self.maxNALSize = maxNALSize
        self.maxAccessUnitSize = maxAccessUnitSize
        buffer.reserveCapacity(256 * 1024)
        ranges.reserveCapacity(64)
    }

    var isEmpty: Bool { ranges.isEmpty && nalStart == nil }
    var isInNAL: Bool { nalStart != nil }
    var holdsPicture: Bool { hasPicture }

    mutating func addLoss(_ count: Int) { lostPackets += count }

    /// Sets the timestamp of what follows, ending the current access unit if it had another.
    mutating func setTimestamp(_ value: UInt64, emit: (AccessUnit) -> Void) {
        if let current = timestamp, current != value, !ranges.isEmpty { finish(emit: emit) }
        timestamp = value
    }

    mutating func beginNAL() {
        if nalStart != nil { abortNAL() }
        nalStart = buffer.count
    }

    mutating func append(_ bytes: ArraySlice<UInt8>) {
        guard let start = nalStart else { return }
        guard buffer.count - start + bytes.count <= maxNALSize, buffer.count + bytes.count <= maxAccessUnitSize else {
            oversizedNALs += 1
            lostPackets += 1
            abortNAL()
            return
        }
        buffer.append(contentsOf: bytes)
    }

    mutating func append(_ byte: UInt8) {
        guard nalStart != nil else { return }
        buffer.append(byte)
    }

    /// Drops the NAL unit being assembled (a fragment was lost): nothing spliced is ever emitted.
    mutating func abortNAL() {
        guard let start = nalStart else { return }
        buffer.removeSubrange(start...)
        nalStart = nil
    }

    /// Adds a whole NAL unit.
    mutating func addNAL(_ bytes: ArraySlice<UInt8>, emit: (AccessUnit) -> Void) {
        beginNAL()
        append(bytes)
        endNAL(emit: emit)
    }

    /// Closes the NAL unit being assembled and files it, splitting it where a camera left start codes in it.
    mutating func endNAL(emit: (AccessUnit) -> Void) {
        guard let start = nalStart else { return }
        nalStart = nil
        let nal = buffer[start...]
        guard nal.count > (codec == .h264 ? 1 : 2) else {
            buffer.removeSubrange(start...)
            return
        }
        // Quirk: some cameras put Annex B streams (start codes included) in RTP payloads.
        if AnnexB.containsStartCode(nal) {
            let parts = AnnexB.split(nal)
            let copy = parts.map { Array(buffer[$0]) }
            buffer.removeSubrange(start...)
            for part in copy {
                nalStart = buffer.count
                buffer.append(contentsOf: part)
                file(from: buffer.count - part.count, emit: emit)
            }
            nalStart = nil
            return
        }
        file(from: start, emit: emit)
    }

    /// Files the NAL unit at `start..<buffer.endIndex`, ending the access unit before it when it starts a new one.
    private mutating func file(from start: Int, emit: (AccessUnit) -> Void) {
        nalStart = nil
        var start = start
        let unit = NALUnit(codec: codec, bytes: buffer[start...])
        guard unit.bytes.first.map({ $0 & 0x80 == 0 }) == true else {
            buffer.removeSubrange(start...)  // forbidden_zero_bit set: not a NAL unit
            return
        }
        if hasPicture && startsAccessUnit(unit) {
            let length = buffer.count - start
            finish(emit: emit, excludingTail: length)
            start = 0
        }
        let nal = NALUnit(codec: codec, bytes: buffer[start...])
        if nal.isVCL { hasPicture = true }
        if nal.isKeyframe { keyframe = true }
        if nal.isParameterSet && parameterSets.update(nal) { parameterSetsChanged = true }
        ranges.append(start..<buffer.count)
    }

    /// Whether this NAL unit can only be the first of a new access unit (H.264 7.4.1.2.3, H.265 7.4.2.4.4).
    private func startsAccessUnit(_ nal: NALUnit) -> Bool {
        let type = nal.type
        switch codec {
        case .h264:
            switch type {
            case 6, 7, 8, 9, 14, 15, 16, 17, 18: return true
            case 1, 2, 5:
                // first_mb_in_slice is ue(v): it is 0 exactly when its first bit is 1.
                return nal.bytes.count > 1 && nal.bytes[nal.bytes.startIndex + 1] & 0x80 != 0
            default: return false
            }
        case .h265:
            switch type {
            case 32, 33, 34, 35, 39, 41, 42, 43, 44, 48...55: return true
            case 0...31:
                return nal.bytes.count > 2 && nal.bytes[nal.bytes.startIndex + 2] & 0x80 != 0  // first_slice_segment_in_pic_flag
            default: return false
            }
        }
    }

    /// Emits the access unit (if it holds anything) and starts the next with an empty buffer.
    /// With `excludingTail`, the last bytes of the buffer (a NAL unit not yet filed) move to the next one.
    mutating func finish(emit: (AccessUnit) -> Void, excludingTail tail: Int = 0) {
        if nalStart != nil && tail == 0 { abortNAL() }
        if !ranges.isEmpty, let timestamp {
            emit(
                AccessUnit(
                    codec: codec, timestamp: timestamp,
                    nalUnits: AccessUnit.NALUnits(codec: codec, storage: buffer, ranges: ranges), isKeyframe: keyframe,
                    parameterSetsChanged: parameterSetsChanged, lostPackets: lostPackets))
            lostPackets = 0
        }
        if tail > 0 {
            let tailStart = buffer.count - tail
            buffer.replaceSubrange(0..<tailStart, with: EmptyCollection())
        } else {
            buffer.removeAll(keepingCapacity: true)
        }
        ranges.removeAll(keepingCapacity: true)
        hasPicture = false
        keyframe = false
        parameterSetsChanged = false
    }
}
