public import AppStore

/// How grant answers Apple's `CONSUMPTION_REQUEST`s (Send Consumption Information v2,
/// docs/operations.md "Consumption requests"). Off unless the operator turns it on and says
/// whether customers consented.
public struct ConsumptionConfiguration: Hashable, Sendable {
    /// Apple's window: an answer sent more than 12 hours after the request informs nothing.
    public static let appleAnswerWindow: Duration = .seconds(12 * 3600)

    /// Whether the customers consented to sharing consumption data (the app collects that
    /// consent, not the pipeline). Apple refuses any other value than `true` (400,
    /// InvalidCustomerConsentedError) and asks developers without consent not to answer, so
    /// `false` answers nothing.
    public var customerConsented: Bool
    /// `sampleContentProvided`, required by Apple: whether the app offered a free sample, a
    /// trial or a description of the content before the purchase.
    public var sampleContentProvided: Bool
    /// Sent as `refundPreference`; nil leaves the field out.
    public var refundPreference: ConsumptionRequest.RefundPreference?
    /// Whether a delivered consumable counts as fully consumed (`consumptionPercentage`
    /// 100000). Off: the percentage is left out, since the pipeline cannot see usage.
    public var consumablesCountAsConsumed: Bool
    /// Requests signed longer ago than this are not answered.
    public var answerWindow: Duration

    public init(
        customerConsented: Bool,
        sampleContentProvided: Bool = false,
        refundPreference: ConsumptionRequest.RefundPreference? = nil,
        consumablesCountAsConsumed: Bool = true,
        answerWindow: Duration = Self.appleAnswerWindow
    ) {
        self.customerConsented = customerConsented
        self.sampleContentProvided = sampleContentProvided
        self.refundPreference = refundPreference
        self.consumablesCountAsConsumed = consumablesCountAsConsumed
        self.answerWindow = answerWindow
    }
}
