import Foundation

/// The bytes of a progressive JPEG that its preview decoder needs, picked as they arrive.
///
/// Previews of a large image are decoded at 1/8 scale, where libjpeg's inverse DCT of a block
/// reads little more than its DC coefficient: the AC scans (most of the file's bytes, and most of
/// libjpeg's Huffman decoding) barely change the preview. When the frame header says the previews
/// will be at 1/8 (`dropsACScans` decides, from the image's size), the filter leaves every AC scan
/// out of what the preview decoder gets and puts an empty comment segment (`FF FE 00 02`) in its
/// place, so libjpeg sees a marker after the scan before it and knows that scan is complete. It
/// still counts every scan of the file, and which of them the preview decoder got
/// (``decodedScans(through:)``), so a preview can be offered after every scan.
///
/// Otherwise (a sequential file, previews above 1/8) it passes every byte through unchanged. The
/// walk follows the file as libjpeg does: marker segments by their length, entropy-coded data up
/// to a 0xFF followed by neither 0x00 nor a restart marker. What the walk cannot follow (a bad
/// length, a scan header that does not add up, a stray 0xFF 0x00) marks the filter ``isBroken``:
/// the previews stop, and the final image, which does not come from this decoder, is not
/// affected.
package struct JPEGScanFilter {
    private enum State {
        /// Before a marker: a 0xFF must come.
        case marker
        /// After a 0xFF: the marker's code (or another 0xFF, a fill byte).
        case code
        /// A marker segment's two length bytes, `read` of them so far.
        case length(code: UInt8, read: [UInt8])
        /// The rest of a marker segment: `remaining` bytes, of which the scan and frame headers
        /// are kept in `header` (at most `maxHeaderBytes`).
        case segment(code: UInt8, length: Int, remaining: Int, header: [UInt8])
        /// A scan's entropy-coded data, passed on or left out; `sawFF` when the last byte was a 0xFF.
        case entropy(passed: Bool, sawFF: Bool)
        /// Every byte from here on is passed on as it is.
        case passThrough
        case broken
    }

    private var state = State.marker
    private let dropsACScans: @Sendable (_ width: Int, _ height: Int) -> Bool
    /// For each scan of the file whose data has ended, how many scans the preview decoder had got
    /// by then.
    private var decodedByScan: [Int] = []
    private var passedScans = 0

    /// The most bytes of a scan or frame header the walk keeps: a valid scan header has at most 14.
    private static let maxHeaderBytes = 64

    /// A filter that leaves out AC scans when `dropsACScans(width, height)` of the frame header
    /// says so.
    package init(dropsACScans: @escaping @Sendable (_ width: Int, _ height: Int) -> Bool) {
        self.dropsACScans = dropsACScans
    }

    /// True while AC scans are left out: from a progressive frame header that `dropsACScans` chose.
    package private(set) var isFiltering = false
    /// True once the walk met what it cannot follow; nothing more comes out.
    package var isBroken: Bool {
        if case .broken = state { return true }
        return false
    }
    /// True once the end marker was seen while filtering.
    package private(set) var reachedEnd = false

    /// Scans of the file whose data has ended (counted while filtering).
    package var completedScans: Int { decodedByScan.count }

    /// How many scans the preview decoder had got when scan `scan` (1-based) of the file ended.
    package func decodedScans(through scan: Int) -> Int {
        guard scan >= 1, scan <= decodedByScan.count else { return 0 }
        return decodedByScan[scan - 1]
    }

    /// The part of `bytes`, the next bytes of the file, that the preview decoder needs.
    package mutating func filter(_ bytes: Data) -> Data {
        if case .passThrough = state { return bytes }
        if isBroken { return Data() }
        var out = Data()
        out.reserveCapacity(bytes.count)
        bytes.withUnsafeBytes { raw in
            let input = raw.bindMemory(to: UInt8.self)
            var index = 0
            while index < input.count {
                index = step(input, from: index, into: &out)
            }
        }
        return out
    }

    /// Takes what it can from `input` at `index` in the current state; returns where it stopped.
    private mutating func step(_ input: UnsafeBufferPointer<UInt8>, from index: Int, into out: inout Data) -> Int {
        switch state {
        case .passThrough:
            out.append(contentsOf: UnsafeBufferPointer(rebasing: input[index...]))
            return input.count
        case .broken:
            return input.count
        case .marker:
            guard input[index] == 0xFF else {
                state = .broken
                return input.count
            }
            state = .code
            return index + 1
        case .code:
            marker(input[index], into: &out)
            return index + 1
        case .length(let code, var read):
            read.append(input[index])
            guard read.count == 2 else {
                state = .length(code: code, read: read)
                return index + 1
            }
            let length = Int(read[0]) << 8 | Int(read[1])
            guard length >= 2 else {
                state = .broken
                return input.count
            }
            if code != 0xDA { out.append(contentsOf: [0xFF, code] + read) }
            state = .segment(code: code, length: length, remaining: length - 2, header: [])
            if length == 2 { endSegment(code: code, length: length, header: [], into: &out) }
            return index + 1
        case .segment(let code, let length, let remaining, var header):
            let take = min(remaining, input.count - index)
            let piece = UnsafeBufferPointer(rebasing: input[index..<index + take])
            if code != 0xDA { out.append(contentsOf: piece) }
            if header.count < Self.maxHeaderBytes {
                header.append(contentsOf: piece.prefix(Self.maxHeaderBytes - header.count))
            }
            if take == remaining {
                endSegment(code: code, length: length, header: header, into: &out)
            } else {
                state = .segment(code: code, length: length, remaining: remaining - take, header: header)
            }
            return index + take
        case .entropy(let passed, let sawFF):
            return entropy(input, from: index, passed: passed, sawFF: sawFF, into: &out)
        }
    }

    /// The marker `code` after a 0xFF.
    private mutating func marker(_ code: UInt8, into out: inout Data) {
        switch code {
        case 0xFF:
            state = .code   // a fill byte
        case 0x00:
            state = .broken
        case 0x01, 0xD0...0xD8:
            out.append(contentsOf: [0xFF, code])
            state = .marker
        case 0xD9:
            out.append(contentsOf: [0xFF, code])
            reachedEnd = true
            state = .passThrough
        default:
            state = .length(code: code, read: [])
        }
    }

    /// A whole marker segment has been read (and passed on, but for a scan header).
    private mutating func endSegment(code: UInt8, length: Int, header: [UInt8], into out: inout Data) {
        switch code {
        case 0xC0...0xCF where code != 0xC4 && code != 0xC8 && code != 0xCC:
            // A frame header: precision, height, width. Only a progressive Huffman frame is filtered.
            guard code == 0xC2, header.count >= 5 else { return passThrough() }
            let height = Int(header[1]) << 8 | Int(header[2]), width = Int(header[3]) << 8 | Int(header[4])
            guard dropsACScans(width, height) else { return passThrough() }
            isFiltering = true
            state = .marker
        case 0xDA:
            // Components, then Ss, Se, Ah and Al: Ss > 0 is an AC scan.
            guard let count = header.first, count >= 1, length == 6 + 2 * Int(count), header.count == length - 2 else {
                state = .broken
                return
            }
            let isAC = header[1 + 2 * Int(count)] > 0
            let passes = !(isFiltering && isAC)
            if passes {
                out.append(contentsOf: [0xFF, 0xDA, UInt8(length >> 8), UInt8(length & 0xFF)] + header)
            } else {
                out.append(contentsOf: [0xFF, 0xFE, 0x00, 0x02])
            }
            state = .entropy(passed: passes, sawFF: false)
        default:
            state = .marker
        }
    }

    /// Before any scan, nothing is left out: every byte from here on goes through as it is.
    private mutating func passThrough() {
        state = .passThrough
    }

    /// Entropy-coded data from `index`: passed on (when `passed`) up to the marker that ends it.
    private mutating func entropy(_ input: UnsafeBufferPointer<UInt8>, from index: Int, passed: Bool, sawFF: Bool,
                                  into out: inout Data) -> Int {
        var position = index
        if sawFF {
            let next = input[position]
            if next == 0x00 || (0xD0...0xD7).contains(next) {
                if passed { out.append(contentsOf: [0xFF, next]) }
                state = .entropy(passed: passed, sawFF: false)
                return position + 1
            }
            // The scan's data ended at that 0xFF: what follows is a marker (or fill bytes before one).
            endScan(passed: passed)
            state = .code
            return position
        }
        let rest = UnsafeBufferPointer(rebasing: input[position...])
        guard let offset = rest.firstIndex(of: 0xFF) else {
            if passed { out.append(contentsOf: rest) }
            return input.count
        }
        let found = position + offset   // a rebased buffer counts from 0
        if passed { out.append(contentsOf: UnsafeBufferPointer(rebasing: input[position..<found])) }
        position = found + 1
        state = .entropy(passed: passed, sawFF: true)
        return position
    }

    private mutating func endScan(passed: Bool) {
        if passed { passedScans += 1 }
        decodedByScan.append(passedScans)
    }
}
