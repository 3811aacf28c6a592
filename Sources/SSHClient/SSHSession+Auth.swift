import CLibSSH2
import Foundation
import XCFleetBasics
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Checking the server's host key and authenticating, during `SSHSession.open` (the session's
/// connect, exec and wait loops are in `SSHSession.swift`).
extension SSHSession {
    // MARK: - Host key

    func verifyHostKey(known: KnownHosts, path: String, policy: SSHHostKeyPolicy) throws {
        var len = 0
        var type: Int32 = 0
        guard let keyPtr = libssh2_session_hostkey(session, &len, &type), len > 0 else {
            throw SSHError(.handshake, host: label, "the server sent no host key")
        }
        let blob = keyPtr.withMemoryRebound(to: UInt8.self, capacity: len) { Array(UnsafeBufferPointer(start: $0, count: len)) }
        var reader = ByteReader(blob)
        let keyType = reader.string().map { String(decoding: $0, as: UTF8.self) } ?? "unknown"
        let name = target.knownHostsName
        let fingerprint = KnownHosts.fingerprint(blob)
        let line = KnownHosts.plainLine(name: name, keyType: keyType, keyBlob: blob)
        switch known.verify(name: name, keyBlob: blob) {
        case .match:
            return
        case .revoked:
            throw SSHError(.hostKeyChanged, host: label, "host key \(keyType) \(fingerprint) of \(name) is marked @revoked in \(path); refusing to connect")
        case .unknown:
            switch policy {
            case .strict:
                throw SSHError(.hostKeyUnknown, host: label,
                               "host key of \(name) is not in \(path) (\(keyType) \(fingerprint)); verify the fingerprint out of band, then add this line to \(path):\n\(line)\n(or set \"hostKeyPolicy\": \"accept-new\" for this host)")
            case .acceptNew:
                var salt = [UInt8](repeating: 0, count: 20)
                var rng = SystemRandomNumberGenerator()
                for i in salt.indices { salt[i] = UInt8.random(in: 0...255, using: &rng) }
                do {
                    try KnownHosts.append(line: KnownHosts.hashedLine(name: name, keyType: keyType, keyBlob: blob, salt: salt), to: path)
                } catch {
                    throw SSHError(.hostKeyFile, host: label, "cannot add the host key of \(name) to \(path): \(error.localizedDescription)")
                }
            }
        case .changed(let entries):
            let old = entries.map { "\($0.keyType) \(KnownHosts.fingerprint($0.keyBlob)) (\(path) line \($0.line))" }
                .joined(separator: ", ")
            throw SSHError(.hostKeyChanged, host: label,
                           "HOST KEY CHANGED for \(name): known \(old), but the server presents \(keyType) \(fingerprint). Someone may be intercepting the connection, or the host was reinstalled. If the change is expected, remove the old line(s) (ssh-keygen -R '\(name)' -f \(path)) and add:\n\(line)")
        }
    }

    // MARK: - Authentication

    func authenticate(_ auth: SSHAuthMethod, cancel: CancelFlag) throws {
        let deadline = monotonicNow() + deadlines.authentication
        let user = target.user
        switch auth {
        case .keyFile(let path, let passphrase):
            // Checked through InputFile first: libssh2 would block forever opening a FIFO (or a link to one).
            do { _ = try InputFile.read(path, limit: 1 << 20, deadline: 5) } catch {
                throw SSHError(.keyFile, host: label, "cannot read identity file \(path): \(error.reason); check identityFile in the fleet file")
            }
            let keyType = PrivateKeyInfo.keyType(ofFileAt: path)
            do {
                try retry(deadline: deadline, cancel: cancel, phase: .authentication,
                          timeoutMessage: "authentication did not finish within \(deadlines.authentication) s") {
                    xcf_userauth_publickey_fromfile(session, user, nil, path, passphrase ?? "")
                }
            } catch let error as SSHError where error.kind == .authentication {
                if keyType == "ssh-rsa" {
                    throw SSHError(.rsaUnsupported, host: label,
                                   "\(label) refused the RSA key \(path) for user \(user): libssh2 1.10 signs only with ssh-rsa (SHA-1), which OpenSSH 8.8 and later reject. Use an ed25519 key (ssh-keygen -t ed25519) and add its .pub to ~\(user)/.ssh/authorized_keys on the host")
                }
                if error.message.contains("passphrase") || error.message.contains("Unable to extract") || error.message.contains("private key") {
                    throw SSHError(.keyFile, host: label,
                                   "cannot load private key \(path): wrong or missing passphrase (set the variable named by passphraseEnv) or unsupported key format (\(error.message))")
                }
                throw SSHError(.authentication, host: label,
                               "\(label) refused key \(path) for user \(user): add \(path).pub to ~\(user)/.ssh/authorized_keys on the host (\(error.message))")
            }
        case .agent(let socketPath):
            try authenticateWithAgent(socketPath: socketPath, deadline: deadline, cancel: cancel)
        }
    }

    private func authenticateWithAgent(socketPath: String?, deadline: Double, cancel: CancelFlag) throws {
        let user = target.user
        guard let agent = libssh2_agent_init(session) else {
            throw SSHError(.authentication, host: label, "cannot initialise ssh-agent support")
        }
        defer {
            libssh2_agent_disconnect(agent)
            libssh2_agent_free(agent)
        }
        let path = socketPath ?? ProcessInfo.processInfo.environment["SSH_AUTH_SOCK"]
        guard let path, !path.isEmpty else {
            throw SSHError(.authentication, host: label, "ssh-agent requested but SSH_AUTH_SOCK is not set; start ssh-agent and ssh-add an ed25519 key")
        }
        libssh2_agent_set_identity_path(agent, path)
        guard libssh2_agent_connect(agent) == 0, libssh2_agent_list_identities(agent) == 0 else {
            throw SSHError(.authentication, host: label, "cannot talk to ssh-agent at \(path): \(lastError())")
        }
        var previous: UnsafeMutablePointer<libssh2_agent_publickey>?
        var tried: [String] = []
        while true {
            var identity: UnsafeMutablePointer<libssh2_agent_publickey>?
            let rc = libssh2_agent_get_identity(agent, &identity, previous)
            if rc != 0 { break }
            guard let identity else { break }
            previous = identity
            let blobLen = Int(identity.pointee.blob_len)
            var keyType = "?"
            if let b = identity.pointee.blob, blobLen > 0 {
                var reader = ByteReader(Array(UnsafeBufferPointer(start: b, count: blobLen)))
                keyType = reader.string().map { String(decoding: $0, as: UTF8.self) } ?? "?"
            }
            tried.append(keyType)
            do {
                try retry(deadline: deadline, cancel: cancel, phase: .authentication,
                          timeoutMessage: "agent authentication did not finish within \(deadlines.authentication) s") {
                    libssh2_agent_userauth(agent, user, identity)
                }
                return
            } catch let error as SSHError where error.kind == .authentication {
                continue
            }
        }
        if tried.isEmpty {
            throw SSHError(.authentication, host: label, "ssh-agent at \(path) holds no keys; ssh-add an ed25519 key")
        }
        if tried.allSatisfy({ $0 == "ssh-rsa" }) {
            throw SSHError(.rsaUnsupported, host: label,
                           "\(label) refused every agent key for user \(user); the agent holds only RSA keys, which libssh2 1.10 cannot use with OpenSSH 8.8 and later (no rsa-sha2). ssh-add an ed25519 key")
        }
        throw SSHError(.authentication, host: label,
                       "\(label) refused all \(tried.count) agent key(s) (\(tried.joined(separator: ", "))) for user \(user): add the public key to ~\(user)/.ssh/authorized_keys on the host")
    }
}
