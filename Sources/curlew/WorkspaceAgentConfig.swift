import CurlewAgent
import CurlewSigning
import CurlewWorkspace
import Foundation

extension WorkspaceSession {
    /// The workspace's config with its HMAC signers registered (the workspace target does not
    /// link crypto, so the executable makes the signers).
    var agentConfig: NetworkConfig {
        var config = config
        for signer in signers { config.signers[signer.name] = HMACSigner(keyID: signer.keyID, secret: Data(signer.secret.utf8)) }
        return config
    }
}
