import CurlewLocking

/// A debug message on its way to the observer lanes and the `debug` callback, held by reference:
/// each lane and each observer reads it in place, where an enum payload was copied field by field
/// (some forty retains) for every observer it reached, and released the same way.
///
/// A message of a finished exchange is made by its first reader, on that reader's thread (an
/// observer lane, or where callbacks run), from values that no longer change; the transfer thread,
/// which every exchange waits on, only hands over what it is made of.
final class SharedDebugMessage: Sendable {
    private enum Recipe {
        case pending(@Sendable () -> DebugMessage)
        case made(MadeDebugMessage)
    }

    private let recipe: Locked<Recipe>

    /// A message made already.
    init(_ message: DebugMessage) {
        recipe = Locked(.made(MadeDebugMessage(message)))
    }

    /// A message `make` makes when it is first read; `make` must depend only on values that no
    /// longer change.
    init(making make: @escaping @Sendable () -> DebugMessage) {
        recipe = Locked(.pending(make))
    }

    /// The message, made once by whichever reader comes first; every reader gets the same one.
    var made: MadeDebugMessage {
        recipe.withLock { recipe in
            switch recipe {
            case .made(let made):
                return made
            case .pending(let make):
                let made = MadeDebugMessage(make())
                recipe = .made(made)
                return made
            }
        }
    }
}

/// A debug message once made: a reference, so that readers borrow it rather than copy it.
final class MadeDebugMessage: Sendable {
    let message: DebugMessage

    init(_ message: DebugMessage) {
        self.message = message
    }

    /// Lends the message to `reader` in place (reading `message` through a temporary reference
    /// copied it whole, field by field).
    func lend(_ reader: (DebugMessage) -> Void) {
        reader(message)
    }
}
