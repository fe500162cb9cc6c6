import RTP
import Testing

@Suite struct Base64Tests {
    @Test func acceptsMissingPaddingAndTheURLAlphabet() {
        let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]  // an H.264 PPS, as sprop-parameter-sets carry it
        #expect(Base64.decode("aM48gA") == pps)
        #expect(Base64.decode("aM48gA==") == pps)
        #expect(Base64.decode("-_8=") == [0xFB, 0xFF])
        #expect(Base64.decode("a") == nil)
        #expect(Base64.decode("aM==gA") == nil)
    }
}
