import CurlewAgent

/// A chain run one step at a time from Compose: before each step its request, resolved with
/// what the earlier steps captured, waits in the editor to be read, edited and sent (or the
/// run stopped); each answer's captures are taken as the chain would take them.
public struct ChainStepper: Sendable {
    public let name: String
    let steps: [ChainStep]
    /// The step whose request is in the editor, or being sent.
    public private(set) var index = 0
    public private(set) var captured: [(name: String, value: String)] = []
    /// The step's request is on its way; its answer moves the run on.
    public var sentID: UInt64?
    /// The last step sent, whose answer the response panel shows.
    public var lastSentID: UInt64?
    /// The run ended: how, in words.
    public private(set) var outcome: String?
    /// What the editor held before the run, given back when it ends.
    let draftBefore: RequestDraft
    let loadedItemBefore: Int?
    /// The config's default headers: its `Content-Type` goes on the wire when a step has none,
    /// and makes a text body JSON for filling in captures, as the chain's run fills it.
    let defaultHeaders: HTTPHeaders
    /// The names the chain fills in (`RequestGroup.fillsOnly`).
    let fillsOnly: Set<String>?
    /// The workspace's environment when the run began: its captures belong to that one's servers.
    let environment: String?

    public init?(name: String, group: RequestGroup, draftBefore: RequestDraft, loadedItemBefore: Int?, defaultHeaders: HTTPHeaders = [:],
                 environment: String? = nil) {
        guard let steps = group.chainSteps, !steps.isEmpty, !Self.hasGroupStep(group) else { return nil }
        self.name = name
        self.steps = steps
        self.draftBefore = draftBefore
        self.loadedItemBefore = loadedItemBefore
        self.defaultHeaders = defaultHeaders
        self.environment = environment
        fillsOnly = group.fillsOnly
    }

    /// What the steps so far captured, filled in as the chain's run fills it.
    private var variables: ChainVariables {
        var variables = ChainVariables(captured)
        variables.fillsOnly = fillsOnly
        return variables
    }

    public var stepCount: Int { steps.count }

    /// Whether a chain has a group among its steps: such a step has no request to hold in the
    /// editor, so the chain runs whole and is not stepped.
    static func hasGroupStep(_ group: RequestGroup) -> Bool {
        group.chainSteps?.contains { if case .group = $0.member { true } else { false } } ?? false
    }

    /// The current step's request as the chain holds it, its `{{name}}` templates unfilled:
    /// what the editor shows, filled in once when it is sent (a captured value that holds a
    /// `{{…}}` of its own is never filled in again).
    func stepRequest() throws(RequestError) -> Request {
        guard case .request(let request) = steps[index].member else {
            throw RequestError(.groupFailed, "step \(index + 1) of \(name) is a group; only request steps are stepped")
        }
        return request
    }

    /// The names the steps before the current one capture: not read as the workspace's
    /// variables of those names, as the chain's run reads them.
    var namesCapturedBefore: Set<String> {
        Set(steps[..<index].flatMap { $0.captures.map(\.name) })
    }

    /// The current step's request with the captures so far filled in, as the chain's run makes
    /// it (a workspace's step built again with them, `Request.captureFilling`).
    func resolvedRequest() throws(RequestError) -> Request {
        try variables.request(for: try stepRequest(), defaultHeaders: defaultHeaders)
    }

    /// The step's request with the editor's fields as the user left them (the step's templates,
    /// or what the user typed), filled in once, as the chain's run fills a step.
    func request(editedAs draft: RequestDraft) throws(RequestError) -> Request {
        let base = try resolvedRequest()
        let edited = try draft.makeRequest(variables: variables, defaultContentType: defaultHeaders["Content-Type"])
        return draft.applying(edited, onto: base)
    }

    /// Ends the run early, saying why.
    mutating func end(_ reason: String) {
        outcome = "stopped: \(reason)"
    }

    /// Takes the step's answer: its captures, then the next step (or the end of the run).
    /// Returns what happened, for the status line.
    mutating func take(_ message: DebugMessage) -> String {
        sentID = nil
        guard message.state == .succeeded, let response = message.response else {
            // A capture the request checked itself failed it (`ResponseValidation.captures`).
            if let error = message.error, error.kind == .captureFailed {
                outcome = "stopped: \(error.message)"
            } else {
                outcome = "stopped: step \(index + 1) failed (\(message.error?.message ?? "no answer"))"
            }
            return outcome!
        }
        // By the rule a running chain reads them with, the answer's JSON parsed once.
        let found = Capture.extract(steps[index].captures, from: response)
        // Those found before a missing one are kept, as a running chain keeps them.
        var taken: [String] = []
        for item in found.captured {
            captured.removeAll { $0.name == item.capture.name }
            captured.append((item.capture.name, item.value))
            taken.append(item.capture.name)
        }
        if let failure = found.failure {
            outcome = "stopped: \(failure.message)"
            return outcome!
        }
        index += 1
        let note = taken.isEmpty ? "" : " (captured \(taken.joined(separator: ", ")))"
        if index == steps.count {
            outcome = "\(name): all \(steps.count) steps done\(note)"
            return outcome!
        }
        return "step \(index) answered \(response.statusCode)\(note); step \(index + 1) of \(steps.count) is in the editor: s sends it, Esc stops"
    }
}
