# frozen_string_literal: true

# Runs one Ruby block of the docs, read from stdin, in a fresh Ruby, for
# spec/bloomc/doc_snippets_spec.rb:
#
#   ruby -I lib spec/support/doc_snippets/run.rb DOCUMENT LINE [config.ru] < code
#
# LINE is the document's line of the code's first line, so that errors and
# backtraces name the document's lines. Nothing is loaded first: a block
# requires what it uses, as a reader who pastes it must. With config.ru the code is a rackup file, written to
# ./config.ru (after blank lines, so that its lines are the document's) and
# built by Rack::Builder, and the app must answer GET / (through Rack::Lint)
# without a server error.

document, line, mode = ARGV
code = $stdin.read

# The value of a line that ends in "# => VALUE" (DocSnippets.with_checks).
def __doc_check__(actual, expected, line)
  return actual if actual == expected

  raise "#{ARGV[0]}:#{line}: the comment says # => #{expected.inspect}, but the value is #{actual.inspect}"
end

# A binding of its own, on main, with no local variables: this script's are
# not the block's.
def doc_block = binding

if mode == "config.ru"
  require "rack" # autoloads Rack::Builder, Rack::Lint and Rack::MockRequest
  path = File.expand_path("config.ru")
  File.write(path, "#{"\n" * (line.to_i - 1)}#{code}")
  app = eval("Rack::Builder.new { #{code}\n}.to_app", doc_block, path, line.to_i) # rubocop:disable Security/Eval, Style/EvalWithLocation
  response = Rack::MockRequest.new(Rack::Lint.new(app)).get("/")
  raise "#{document}: GET / answered #{response.status}: #{response.body[0, 500]}" if response.status >= 500
else
  eval(code, doc_block, document, line.to_i) # rubocop:disable Security/Eval
end
