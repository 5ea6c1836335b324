# frozen_string_literal: true

# The gem is silent under ruby -w. spec_helper.rb loads this before the gem,
# with $VERBOSE on: every warning whose text names one of the gem's own files
# (lib/, ext/ or the compiled bloomc.so) is recorded, and fails the example
# it came from, or the run when it came from outside any example (loading).
# Warnings from other gems and from the specs themselves are printed as
# usual and fail nothing.
module OwnWarnings
  ROOT = File.expand_path("../..", __dir__)
  OWN = %r{#{Regexp.escape(ROOT)}/(?:lib|ext)/|\bbloomc\.so\b}

  # Bundler's and RubyGems' own files. A child `ruby -w` run under `bundle
  # exec` loads them first (RUBYOPT), and a Bundler older than its Ruby (the
  # one a lockfile pins) warns there of methods it redefines: that is the
  # environment's, not bloomc's, and the specs that ask for a silent child
  # set it apart.
  TOOLS = %r{/(?:bundler-[\d.]+/lib/bundler|rubygems|bundler)(?:/|\.rb:)}

  @seen = []
  @lock = Mutex.new

  class << self
    def own?(message) = OWN.match?(message)

    # err without the warnings from Bundler's and RubyGems' own files.
    def without_tools(err)
      err.lines.reject { |line| line.include?(": warning: ") && TOOLS.match?(line) && !own?(line) }.join
    end

    def record(message)
      @lock.synchronize { @seen << message }
    end

    # The warnings recorded since the last take.
    def take
      @lock.synchronize do
        taken = @seen
        @seen = []
        taken
      end
    end
  end

  # Prepended to Warning's singleton class: Kernel#warn and the VM's own
  # warnings all come through Warning.warn.
  module Hook
    def warn(message, *args, **options)
      OwnWarnings.record(message) if OwnWarnings.own?(message)
      super
    end
  end
  Warning.singleton_class.prepend(Hook)

  # The message that fails an example or the run.
  def self.failure(warnings, where)
    "#{warnings.size} warning(s) from bloomc's own files #{where}:\n#{warnings.map { |w| "  #{w.chomp}" }.join("\n")}"
  end
end
