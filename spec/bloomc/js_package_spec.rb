# frozen_string_literal: true

require "spec_helper"
require "json"
require "open3"
require "timeout"
require "tmpdir"

# The JavaScript reader as an npm package, as a new user meets it: `npm pack`
# of js/ holds what a user needs and nothing else, and in an empty project
# the commands of js/README.md (bloomc on the PATH, npm offline) pack and
# install it, and every JavaScript example of that README runs as written
# against a real `bloomc serve`; the first one prints what the README shows.
RSpec.describe "the JavaScript reader's npm package", :slow do
  root = File.expand_path("../..", __dir__)
  js = File.join(root, "js")
  readme = File.join(js, "README.md")
  node = ENV.fetch("NODE", "node")
  npm = ENV.fetch("NPM", "npm")
  tools = [node, npm].reject { |tool| system("#{tool} --version > /dev/null 2>&1") }
  gems = OptionalGems.installed?("rack", "puma")

  before do
    # CI installs Node and npm on the host (BLOOMC_NODE_REQUIRED); the
    # Debian roots have neither.
    skip "#{tools.join(' and ')} #{tools.size == 1 ? 'is' : 'are'} not installed" unless tools.empty? || ENV["BLOOMC_NODE_REQUIRED"]
    skip "the rack and puma gems are not installed (bloomc serve)" unless gems || ENV["BLOOMC_SERVE_REQUIRED"]
  end

  around do |example|
    Dir.mktmpdir("bloomc-npm") do |dir|
      @dir = dir
      example.run
    ensure
      stop_serve
    end
  end

  # npm with its cache in the test's directory, offline (this package has
  # no dependencies: nothing is fetched), without its notices.
  define_method(:npm_env) do
    { "npm_config_cache" => File.join(@dir, "npm-cache"), "npm_config_offline" => "true",
      "npm_config_audit" => "false", "npm_config_fund" => "false", "npm_config_update_notifier" => "false" }
  end

  # Runs a command (in +chdir+) for at most two minutes; its output and status.
  def run(env, *command, chdir:)
    Open3.popen2e(env, *command, chdir: chdir) do |stdin, out, wait|
      stdin.close
      reader = Thread.new { out.read }
      unless wait.join(120)
        Process.kill("KILL", wait.pid)
        raise "#{command.join(' ')} took over two minutes:\n#{reader.value}"
      end
      [reader.value, wait.value]
    end
  end

  # The README's fenced blocks, in order: [language, text].
  define_method(:readme_blocks) do
    File.read(readme).scan(/^```(\w*)\n(.*?)^```$/m)
  end

  define_method(:packed) do |destination|
    out, status = run(npm_env, npm, "pack", "--pack-destination", destination, chdir: js)
    expect(status.success?).to be(true), out
    Dir[File.join(destination, "*.tgz")]
  end

  include ServeProcess

  # A directory on the PATH with `bloomc` in it: this checkout's command.
  define_method(:bloomc_on_path) do
    bin = File.join(@dir, "bin")
    Dir.mkdir(bin)
    File.write(File.join(bin, "bloomc"), <<~SH)
      #!/bin/sh
      exec '#{RbConfig.ruby}' -I '#{File.join(root, 'lib')}' '#{File.join(root, 'exe/bloomc')}' "$@"
    SH
    File.chmod(0o755, File.join(bin, "bloomc"))
    "#{bin}:#{ENV.fetch('PATH')}"
  end

  it "packs the reader, its types, README, LICENSE and package.json, at the gem's version" do
    manifest = JSON.parse(File.read(File.join(js, "package.json")))
    expect(manifest["version"]).to eq(Bloomc::VERSION)
    expect(File.read(File.join(js, "LICENSE"))).to eq(File.read(File.join(root, "LICENSE")))
    expect(manifest.dig("exports", ".", "types")).to eq("./src/bloomc.d.ts")
    # The README imports the package by its name.
    imports = File.read(readme).scan(/^import .* from "([^".]+)";$/).flatten.uniq - ["node:fs/promises"]
    expect(imports).to eq([manifest["name"]])

    tarballs = packed(@dir)
    expect(tarballs.map { |path| File.basename(path) }).to eq(["#{manifest['name']}-#{manifest['version']}.tgz"])
    expect(File.basename(tarballs.first)).to match(/\Abloomc-.*\.tgz\z/)
    files, status = Open3.capture2("tar", "tzf", tarballs.first)
    expect(status.success?).to be(true)
    expect(files.split.sort).to eq(%w[package/LICENSE package/README.md package/package.json package/src/bloomc.d.ts
                                      package/src/bloomc.js])
  end

  it "installs offline into an empty project, where every example of its README runs against bloomc serve" do
    project = File.join(@dir, "project")
    Dir.mkdir(project)
    File.write(File.join(project, "package.json"), JSON.generate(name: "try-bloomc", private: true))
    path = bloomc_on_path
    blocks = readme_blocks
    shell = blocks.filter_map { |language, text| text if language == "sh" }
    expect(shell.size).to be >= 2

    # The first shell block builds the filter (the spec serves it itself,
    # on a free port rather than 8080).
    build, serve = shell[0].lines.partition { |line| !line.start_with?("bloomc serve") }
    expect(serve.map(&:split)).to eq([%w[bloomc serve filters]])
    out, status = run({ "PATH" => path }, "sh", "-ec", build.join, chdir: project)
    expect(status.success?).to be(true), out
    added = build.join[/printf '([^']*)'/, 1].split("\\n")
    expect(added).not_to be_empty
    url = start_serve(File.join(project, "filters"))

    # The second packs js/ and installs the tarball.
    install = shell[1].gsub("path/to/bloomc/js", js)
    out, status = run(npm_env.merge("PATH" => path), "sh", "-ec", install, chdir: project)
    expect(status.success?).to be(true), out
    expect(File.file?(File.join(project, "node_modules/bloomc-reader/src/bloomc.js"))).to be(true), out

    examples = blocks.each_index.select { |i| blocks[i][0] == "js" }
    expect(examples.size).to be >= 2
    outputs = examples.map.with_index do |block, n|
      file = File.join(project, "example#{n}.mjs")
      File.write(file, blocks[block][1])
      out, status = run({ "BLOOMC_URL" => url }, node, file, chdir: project)
      expect(status.success?).to be(true), "example #{n + 1} of js/README.md failed:\n#{blocks[block][1]}\n#{out}"
      out
    end

    # The first prints what the README shows after it: KEY and has(KEY), a
    # key added found and one never added not.
    shown = blocks[examples.first + 1]
    expect(shown[0]).to eq("")
    expect(outputs.first).to eq(shown[1])
    answers = outputs.first.lines.to_h { |line| line.split.then { |key, answer| [key, answer] } }
    expect(answers.values.uniq.sort).to eq(%w[false true])
    filter = Bloomc.load(File.binread(File.join(project, "filters/fruit.bloom")))
    answers.each do |key, answer|
      expect(answer).to eq(added.include?(key).to_s), "has(#{key.inspect}) printed #{answer}"
      expect(filter.include?(key).to_s).to eq(answer)
    end
  end
end
