-- wrk script: POSTs one crash report (path in the REPORT environment variable) to every request
-- and counts answers that are not 200, so a run with errors cannot pass unnoticed.
local file = assert(io.open(os.getenv("REPORT"), "rb"))
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()
wrk.headers["Content-Type"] = "text/plain"

local failures = 0
function response(status, headers, body)
    if status ~= 200 then failures = failures + 1 end
end

function done(summary, latency, requests)
    io.write(string.format("non-200 answers: %d (counted in one wrk thread each)\n", failures))
    io.write(string.format("requests/s: %.0f\n", summary.requests / (summary.duration / 1e6)))
    for _, p in ipairs({ 50, 90, 99, 99.9 }) do
        io.write(string.format("p%s latency: %.2f ms\n", p, latency:percentile(p) / 1000))
    end
    io.write(string.format("errors: connect %d, read %d, write %d, status %d, timeout %d\n",
        summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.status, summary.errors.timeout))
end
