# frozen_string_literal: true

require "ripper"

# The Ruby blocks of the README and docs/*.md, for
# spec/bloomc/doc_snippets_spec.rb (whose comment gives the rules a block
# follows), and the checks of their "# => VALUE" comments.
module DocSnippets
  # A fenced block: the Markdown file it is in (relative to the root), the
  # line of its opening fence, its info string's words after the language
  # ("norun", "config.ru") and its code.
  Snippet = Struct.new(:path, :line, :options, :code) do
    def where = "#{path}:#{line}"
    def run? = !options.include?("norun")
    def rackup? = options.include?("config.ru")
    def redis? = code.match?(/\bRedis\b/)
    def rack? = rackup? || code.include?("bloomc/rack")
    def first_code_line = line + 1
  end

  # Languages taken for Ruby (GitHub highlights a fence by the first word of
  # its info string, so "ruby norun" is highlighted as Ruby).
  RUBY = %w[ruby rb].freeze

  # The files whose blocks run, relative to root.
  def self.files(root) = ["README.md", *Dir.glob("docs/*.md", base: root).sort]

  # The Ruby blocks of the Markdown file at root/path, in order. Fences are
  # CommonMark's: three or more backticks or tildes, indented (in a list
  # item) or not, closed by a fence of the same character at least as long;
  # the opening fence's indentation is taken off the code's lines.
  def self.in(root, path)
    lines = File.readlines(File.join(root, path))
    snippets = []
    index = 0
    while index < lines.size
      open = lines[index].match(/\A(?<indent> {0,3}|\s*)(?<fence>`{3,}|~{3,})\s*(?<info>[^`]*?)\s*\z/)
      index += 1
      next unless open

      closing = /\A\s*#{Regexp.escape(open[:fence][0])}{#{open[:fence].size},}\s*\z/
      body = []
      while index < lines.size && !lines[index].match?(closing)
        body << lines[index].sub(/\A {0,#{open[:indent].size}}/, "")
        index += 1
      end
      index += 1
      language, *options = open[:info].split
      snippets << Snippet.new(path, index - body.size - 1, options, body.join) if RUBY.include?(language)
    end
    snippets
  end

  def self.all(root) = files(root).flat_map { |path| self.in(root, path) }

  # A value a "# => " comment gives that is checked: true, false, nil, a
  # number, a String without escapes or interpolation, or an Array of them.
  LITERAL = /(?<literal>true|false|nil|-?\d[\d_]*(?:\.\d+)?(?:e[-+]?\d+)?|"[^"\\#]*"|
             \[\s*(?:\g<literal>(?:\s*,\s*\g<literal>)*)?\s*\])/x
  # ... when it ends the comment or is followed by ":", ";", "," or " (",
  # which start prose about it ("# => false (true at the 1% rate)"); other
  # words after it ("# => true once it is full") say it is not the value now.
  CHECKED = /\A#\s*=>\s*#{LITERAL}(?=\s*\z|[:;,]|\s+\()/

  # The code with each line that ends in a checked "# => VALUE" comment,
  # and is a whole statement on its own, turned into a check of that value
  # (the line's number unchanged, so that errors name the document's line):
  #
  #   filter.include?("a")   # => true
  #
  # becomes `__doc_check__((filter.include?("a")), true, LINE)`, which
  # raises unless the value == true. LINE is the line in the document.
  def self.with_checks(snippet)
    lines = snippet.code.lines
    Ripper.lex(snippet.code).each do |(row, column), type, token|
      next unless type == :on_comment && (value = token.match(CHECKED))

      line = lines[row - 1]
      statement = line.byteslice(0, column)
      next if statement.strip.empty? || Ripper.sexp(statement).nil?

      indent = statement[/\A\s*/]
      document_line = snippet.first_code_line + row - 1
      lines[row - 1] = "#{indent}__doc_check__((#{statement.strip}), #{value[:literal]}, #{document_line})\n"
    end
    lines.join
  end
end
