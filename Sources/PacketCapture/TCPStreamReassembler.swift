import RTP

/// Turns the TCP segments of a capture back into the byte stream of each direction of each connection:
/// what an RTSP client read from its socket, for captures of RTSP sessions with interleaved RTP.
///
/// Segments may arrive out of order or more than once (retransmissions, overlaps); bytes are delivered
/// once, in order. Data after a hole is held, within ``Limits/maxPendingBytes`` per direction; past that,
/// or at ``finish(emit:)``, the hole is skipped and the chunk after it says how many bytes are missing.
/// Chunks are slices of the capture's buffer: nothing is copied.
package struct TCPStreamReassembler: Sendable {
    /// One direction of a connection.
    package struct Flow: Hashable, Sendable, CustomStringConvertible {
        package let source: SocketAddress
        package let destination: SocketAddress
        package init(source: SocketAddress, destination: SocketAddress) {
            self.source = source
            self.destination = destination
        }
        package var description: String { "\(source) -> \(destination)" }
    }

    /// In-order bytes of one flow.
    package struct Chunk: Sendable {
        package let flow: Flow
        /// The capture time of the segment that carried these bytes.
        package let time: ArrivalTime
        package let bytes: ArraySlice<UInt8>
        /// Bytes of the stream that were never captured, just before these (0 when contiguous).
        package let missingBefore: Int
    }

    /// Bounds on what is held.
    package struct Limits: Sendable, Hashable {
        /// Bytes held after a hole, per flow, before the hole is given up. Default 4 MiB.
        package var maxPendingBytes: Int
        /// Flows tracked at once; segments of further flows are counted and dropped. Default 4096.
        package var maxFlows: Int
        package init(maxPendingBytes: Int = 4 << 20, maxFlows: Int = 4096) {
            self.maxPendingBytes = maxPendingBytes
            self.maxFlows = maxFlows
        }
    }

    struct Pending: Sendable {
        var sequence: UInt32
        var time: ArrivalTime
        var bytes: ArraySlice<UInt8>
    }

    struct FlowState: Sendable {
        var next: UInt32?
        var pending: [Pending] = []
        var pendingBytes = 0
    }

    package let limits: Limits
    private var flows: [Flow: FlowState] = [:]
    /// Bytes received more than once (retransmissions and overlaps), not delivered again.
    package private(set) var duplicateBytes = 0
    /// Bytes skipped over because they were never captured.
    package private(set) var missingBytes = 0
    /// Segments dropped because ``Limits/maxFlows`` flows were already tracked.
    package private(set) var droppedSegments = 0

    package init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Adds a segment; `emit` receives every chunk it makes deliverable, in stream order.
    package mutating func add(_ segment: TCPSegment, emit: (Chunk) -> Void) {
        let flow = Flow(source: segment.source, destination: segment.destination)
        // Taken out of the dictionary while it changes, so that appending to its held segments does not
        // copy them (the dictionary would otherwise still share the array).
        var state: FlowState
        if let known = flows.removeValue(forKey: flow) {
            state = known
        } else {
            guard flows.count < limits.maxFlows else {
                droppedSegments += 1
                return
            }
            state = FlowState()
        }
        defer { flows[flow] = state }
        if segment.flags.contains(.syn) {
            // A new connection on this 4-tuple: whatever was held belongs to the old one.
            flush(&state, flow: flow, emit: emit)
            state = FlowState(next: segment.sequenceNumber &+ 1)
            return
        }
        guard !segment.payload.isEmpty, !segment.isTruncated else { return }
        // A capture that starts mid-connection: the stream starts at the first data seen.
        let next = state.next ?? segment.sequenceNumber
        state.next = next
        let offset = Int(Int32(bitPattern: segment.sequenceNumber &- next))
        if offset + segment.payload.count <= 0 {
            duplicateBytes += segment.payload.count
            return
        }
        state.pending.append(Pending(sequence: segment.sequenceNumber, time: segment.time, bytes: segment.payload))
        state.pendingBytes += segment.payload.count
        deliver(&state, flow: flow, force: state.pendingBytes > limits.maxPendingBytes, emit: emit)
    }

    /// Flows tracked now.
    package var flowCount: Int { flows.count }

    /// Drops what is held for `flow` and stops tracking it, for a reader that has no use for it (a
    /// connection that is not RTSP); a later segment of the flow starts it again, as at its first.
    package mutating func forget(_ flow: Flow) {
        flows[flow] = nil
    }

    /// Delivers what is still held, skipping the holes: for the end of the capture.
    package mutating func finish(emit: (Chunk) -> Void) {
        for flow in flows.keys.sorted(by: { $0.description < $1.description }) {
            guard var state = flows.removeValue(forKey: flow) else { continue }
            flush(&state, flow: flow, emit: emit)
            flows[flow] = state
        }
    }

    private mutating func flush(_ state: inout FlowState, flow: Flow, emit: (Chunk) -> Void) {
        while !state.pending.isEmpty { deliver(&state, flow: flow, force: true, emit: emit) }
    }

    /// Delivers every held segment that continues the stream; with `force`, first skips the hole before
    /// the earliest held one.
    private mutating func deliver(_ state: inout FlowState, flow: Flow, force: Bool, emit: (Chunk) -> Void) {
        guard var next = state.next else { return }
        var skip = force
        while true {
            // The held segment closest to (or overlapping) the stream position.
            var best: Int?
            var bestOffset = Int.max
            for (i, p) in state.pending.enumerated() {
                let offset = Int(Int32(bitPattern: p.sequence &- next))
                if offset < bestOffset {
                    best = i
                    bestOffset = offset
                }
            }
            guard let index = best else { break }
            let held = state.pending[index]
            var missing = 0
            if bestOffset > 0 {
                guard skip else { break }
                missing = bestOffset
                missingBytes += bestOffset
                next = held.sequence
                bestOffset = 0
                skip = false
            }
            state.pending.remove(at: index)
            state.pendingBytes -= held.bytes.count
            let already = -bestOffset
            if already >= held.bytes.count {
                duplicateBytes += held.bytes.count
                continue
            }
            duplicateBytes += already
            let fresh = held.bytes[(held.bytes.startIndex + already)...]
            next = next &+ UInt32(fresh.count)
            emit(Chunk(flow: flow, time: held.time, bytes: fresh, missingBefore: missing))
        }
        state.next = next
    }
}
