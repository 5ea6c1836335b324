# frozen_string_literal: true

require "open3"
require "timeout"

# `bloomc serve` run as a person runs it, for the specs that talk to it over
# HTTP: this checkout's command on a free port, its URL read from the line
# it prints on stderr, stopped by Ctrl-C.
module ServeProcess
  ROOT = File.expand_path("../..", __dir__)
  COMMAND = [RbConfig.ruby, "-I", File.join(ROOT, "lib"), File.join(ROOT, "exe/bloomc"), "serve", "--port", "0"].freeze

  # Starts `bloomc serve --port 0 ARGS...` and returns its URL. Each line it
  # logs on stdout goes to the block (read all the same without one, so
  # that a full pipe never stalls it); stdin stays open with +stdin: true+
  # (@serve_stdin), for --slide.
  def start_serve(*args, stdin: false, &each_log_line)
    @serve_stdin, out, err, @serve_wait = Open3.popen3(*COMMAND, *args)
    @serve_stdin.close unless stdin
    line = Timeout.timeout(30) { err.gets }
    raise "bloomc serve did not start: #{line}#{err.read_nonblock(4096, exception: false)}" unless line&.include?("http://")

    Thread.new { out.each_line { |logged| each_log_line&.call(logged) } }
    line[%r{http://\S+/}]
  end

  # Ctrl-C, and its exit awaited (a server already gone is fine).
  def stop_serve
    return unless @serve_wait

    Process.kill("INT", @serve_wait.pid)
    Timeout.timeout(20) { @serve_wait.value }
  rescue Errno::ESRCH
    nil
  end
end
