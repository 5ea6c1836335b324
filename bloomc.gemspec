# frozen_string_literal: true

require_relative "lib/bloomc/version"

Gem::Specification.new do |spec|
  spec.name = "bloomc"
  spec.version = Bloomc::VERSION
  spec.authors = ["The bloomc developers"]
  spec.summary = "Fast, compact Bloom filters for Ruby, written in C (a drop-in for bloombroom)"
  spec.description = <<~DESC
    Bloom filters and their relatives with the work done in C: the plain,
    blocked, scalable (it grows), counting, spectral, bitwise, stable, A2 and
    continuous (expiring) Bloom filters, cuckoo and binary fuse filters, and
    batch forms of every lookup. Filters save to one portable, checksummed
    format, open memory-mapped from a file, live in Redis or Redis Cluster
    for many processes to share, and publish on the web with a Rack app
    (`bloomc serve`) that a dependency-free JavaScript reader queries in the
    browser. The bloomc command deduplicates streams and builds, inspects
    and queries filter files. The API is a drop-in for the pure-Ruby gem
    bloombroom (require "bloomc/bloombroom").
  DESC
  spec.homepage = "https://github.com/bloomc/bloomc"
  spec.license = "MIT"
  spec.required_ruby_version = ">= 3.1" # CI tests 3.1 and 3.3

  # lib/**/*.lua: the Redis filters' scripts, read at require time; the front
  # page of `bloomc serve` and the JavaScript reader it serves; js/'s files
  # make its npm package (`npm pack` of the installed gem's js/ works).
  spec.files = Dir["lib/**/*.{rb,lua,html}", "ext/bloomc/*.{c,h,rb}", "ext/bloomc/depend", "sig/**/*.rbs", "exe/*",
                   "js/src/*.{js,ts}", "js/package.json", "js/README.md", "js/LICENSE", "docs/*.md", "README.md",
                   "LICENSE", "CHANGELOG.md"]
  spec.bindir = "exe"
  spec.executables = ["bloomc"]
  spec.require_paths = ["lib"]
  # The command's progress bar on a terminal.
  spec.add_dependency "ruby-progressbar", "~> 1.13"
  spec.extensions = ["ext/bloomc/extconf.rb"]
  spec.metadata["rubygems_mfa_required"] = "true"
  spec.metadata["homepage_uri"] = spec.homepage
  spec.metadata["source_code_uri"] = spec.homepage
  spec.metadata["changelog_uri"] = "#{spec.homepage}/blob/main/CHANGELOG.md"
  spec.metadata["bug_tracker_uri"] = "#{spec.homepage}/issues"
  spec.metadata["documentation_uri"] = "https://rubydoc.info/gems/bloomc"

  # `gem install` runs rdoc over lib, ext/bloomc and these files, so that ri
  # finds every class and method, the C ones included (spec/bloomc/
  # documentation_spec.rb checks it). The Lua scripts, the front page and
  # the build's dependency list are not documentation.
  spec.extra_rdoc_files = Dir["README.md", "CHANGELOG.md", "LICENSE", "docs/*.md"]
  spec.rdoc_options = ["--main", "README.md", "--title", "bloomc", "--exclude", "\\.(lua|html)\\z|/depend\\z"]
end
