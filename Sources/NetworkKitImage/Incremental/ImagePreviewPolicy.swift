/// Which previews an image stream makes, how often, and how large.
///
/// Previews cost a decode each, at most ``maxPixelSize`` on their longest side: a progressive
/// JPEG's previews come from a second libjpeg decoder that outputs at a reduced DCT scale. At
/// most one preview is made per chunk of the body, of the newest stage the chunk completes; a
/// stage that ``cadence`` skips costs nothing.
public struct ImagePreviewPolicy: Sendable {
    /// When previews come.
    public enum Cadence: Sendable, Equatable {
        /// After every stage (scan, pass, or chunk of rows) that arrives.
        case everyStage
        /// After the first stage only.
        case firstOnly
        /// At most one per `interval` by the policy's clock: the first stage, then the newest
        /// stage once `interval` has passed since the last preview.
        case atMostOncePer(Duration)
        /// Never: the stream gives the final image only.
        case never
    }

    /// The stages that make previews.
    public var sources: ImagePreviewSources
    /// When they come.
    public var cadence: Cadence
    /// The longest side of a preview in pixels (never more than the final image's); `nil` for
    /// the final image's size.
    public var maxPixelSize: Int?
    /// The time since some fixed instant, by the clock the policy was made with.
    let elapsed: @Sendable () -> Duration

    /// Creates a policy: by default a preview after every scan of a progressive JPEG, at most
    /// 256 pixels on its longest side, timed by the continuous clock.
    public init(sources: ImagePreviewSources = .progressiveScans, cadence: Cadence = .everyStage,
                maxPixelSize: Int? = 256) {
        self.init(sources: sources, cadence: cadence, maxPixelSize: maxPixelSize, clock: ContinuousClock())
    }

    /// Creates a policy timed by `clock` (for ``Cadence/atMostOncePer(_:)``): a test passes a
    /// clock it moves by hand.
    public init<C: Clock<Duration>>(sources: ImagePreviewSources = .progressiveScans, cadence: Cadence = .everyStage,
                                    maxPixelSize: Int? = 256, clock: C) {
        self.sources = sources
        self.cadence = cadence
        self.maxPixelSize = maxPixelSize
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
    }

    /// No previews: the final image only.
    public static let none = ImagePreviewPolicy(sources: [], cadence: .never)

    /// True when a preview is due now, `previewsSoFar` previews in, the last one made at `lastTime`.
    func isDue(previewsSoFar: Int, lastTime: Duration?) -> Bool {
        switch cadence {
        case .everyStage: return true
        case .firstOnly: return previewsSoFar == 0
        case .never: return false
        case .atMostOncePer(let interval):
            guard let lastTime else { return true }
            return elapsed() - lastTime >= interval
        }
    }
}

/// The stages of a file that give previews.
public struct ImagePreviewSources: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: Int

    /// Creates a set from its raw bits.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Each completed scan of a progressive JPEG.
    public static let progressiveScans = ImagePreviewSources(rawValue: 1 << 0)
    /// Each completed pass of an Adam7-interlaced PNG.
    public static let interlacedPasses = ImagePreviewSources(rawValue: 1 << 1)
    /// The rows decoded so far of a sequential (baseline) JPEG or a WebP, top-down.
    public static let partialRows = ImagePreviewSources(rawValue: 1 << 2)
    /// Every kind of preview.
    public static let all: ImagePreviewSources = [.progressiveScans, .interlacedPasses, .partialRows]
}
