// Stopping the HTTP daemon while a worker still computes a response: libmicrohttpd aborts the
// process when it stops with a connection suspended, and a worker must not resume a connection
// the daemon has closed. The daemon answers such a request 503 itself and drops what the worker
// answers later.

import Dispatch
import Foundation
import TestSupport
import Testing

@testable import Server

@Suite(.tags(.server))
struct DaemonStopTests {
    /// A handler whose every request is computed on a worker, slowly.
    final class SlowHandler: ExchangeHandler, @unchecked Sendable {
        let seconds: Double
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)

        init(seconds: Double) { self.seconds = seconds }

        func begin(_ exchange: Exchange) -> ExchangeDecision {
            .offload { [seconds, started, finished] in
                started.signal()
                Thread.sleep(forTimeInterval: seconds)
                finished.signal()
                return HTTPResponse(status: 200, contentType: "text/plain", body: Array("late".utf8))
            }
        }

        func finish(_ exchange: Exchange) -> ExchangeDecision { .respond(HTTPResponse(status: 500)) }
        func completed(_ exchange: Exchange, clientGone: Bool) {}
        func headerTimedOut() {}
    }

    @Test func aRequestStillBeingComputedIsAnswered503AndTheDaemonStops() throws {
        let listener = Loopback.socket()
        let port = try #require(Loopback.bind(listener, listen: true))
        let handler = SlowHandler(seconds: 1.5)
        let daemon = try HTTPDaemon(
            .init(
                listenFD: listener, threads: 2, connectionTimeoutSeconds: 30, connectionLimit: 16,
                connectionsPerAddress: 0, headerTimeoutSeconds: 0, uploadDirectory: NSTemporaryDirectory(),
                requestTimeoutSeconds: 60, minimumBodyRate: 1024, bodyGraceSeconds: 10),
            handler: handler)
        let connection = try TestConnection(port: UInt16(port), timeout: 10)
        try connection.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        // Stopped while a worker computes the answer: the case this is about.
        #expect(handler.started.wait(timeout: .now() + Eventually.patience) == .success, "no worker started")
        // As the server stops: the listening socket back from libmicrohttpd first, closed once.
        let fd = daemon.quiesce()
        daemon.stop()
        if fd >= 0 { close(fd) }
        let response = try connection.response()
        #expect(response.status == 503)
        #expect(response.errorCode == "shutting_down")
        // The worker finishes afterwards; what it answers goes nowhere.
        #expect(handler.finished.wait(timeout: .now() + 5) == .success)
    }
}
