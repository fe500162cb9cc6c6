import Synchronization

/// A decoder given to a sequence, handed to the one iterator that takes it: the sequence stays `Sendable`
/// whatever the decoder, which is sent (`sending`) rather than shared.
final class DecoderHandOff<Decoder>: Sendable {
    private let decoder: Mutex<Decoder?>

    init(_ decoder: sending Decoder) {
        self.decoder = Mutex(decoder)
    }

    /// The decoder, the first time; nil after.
    func take() -> sending Decoder? {
        decoder.withLock { held in
            let taken = held.take()
            return taken
        }
    }
}
