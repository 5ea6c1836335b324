# frozen_string_literal: true

# Debian roots for testing bloomc on another Ruby or another processor:
# made with debootstrap from the host's own Debian mirror, cached between
# runs (keyed by suite, architecture and package list), and entered with
# chroot, the host's loopback (its Redis servers) in reach. A foreign
# architecture runs under qemu-user-static through binfmt_misc.
#
#   ruby .ci/debian_root.rb ensure SUITE ARCH PACKAGE...   # prints the root's path
#   ruby .ci/debian_root.rb run ROOT COMMAND               # the work tree copied to /bloomc, COMMAND run there
#
# Needs root (debootstrap, mount, chroot). BLOOMC_ROOTS sets where roots are
# kept (default /var/cache/bloomc/roots); BLOOMC_DEBIAN_MIRROR the mirror
# (default: the first Debian archive the host's apt sources name).
require "digest"
require "fileutils"
require "open3"
require "shellwords"

module DebianRoot
  CACHE = ENV.fetch("BLOOMC_ROOTS", "/var/cache/bloomc/roots")
  # Bumped when what a root gets beyond its packages changes.
  RECIPE = 2
  # Passed into the root when set: what the specs and the build read.
  PASS_ENV = /\A(?:BLOOMC_|REDIS_|BUNDLE_|FUZZ_|CI\z|RSPEC_)/

  module_function

  def mirror
    return ENV["BLOOMC_DEBIAN_MIRROR"] if ENV["BLOOMC_DEBIAN_MIRROR"]

    sources = Dir["/etc/apt/sources.list", "/etc/apt/sources.list.d/*.{list,sources}"].map { |f| File.read(f) }.join("\n")
    uri = sources.scan(%r{(?:^deb\s+(?:\[[^\]]*\]\s+)?|^URIs:\s*)(\S+/debian)/?\s}).flatten.first
    uri or abort "debian_root: no Debian archive in the host's apt sources; set BLOOMC_DEBIAN_MIRROR"
  end

  def ensure_root(suite, arch, packages)
    key = Digest::SHA256.hexdigest([RECIPE, suite, arch, *packages.sort].join(" "))[0, 12]
    root = File.join(CACHE, "#{suite}-#{arch}-#{key}")
    return root if File.exist?(File.join(root, ".bloomc-root-ready"))

    FileUtils.mkdir_p(CACHE)
    building = "#{root}.building"
    FileUtils.rm_rf(building)
    foreign = arch != host_arch
    enable_binfmt(arch) if foreign
    cmd = ["debootstrap", "--variant=minbase", "--arch=#{arch}", "--include=#{packages.join(',')}",
           *("--foreign" if foreign), suite, building, mirror]
    warn "debian_root: #{cmd.shelljoin}"
    out, status = Open3.capture2e(*cmd)
    unless status.success?
      warn out.lines.last(30).join
      abort "debian_root: debootstrap of #{suite}/#{arch} failed"
    end
    unpack_foreign(building) if foreign
    FileUtils.touch(File.join(building, ".bloomc-root-ready"))
    File.rename(building, root)
    # Older roots of the same suite and arch (another package list) go.
    Dir[File.join(CACHE, "#{suite}-#{arch}-*")].each { |old| FileUtils.rm_rf(old) unless old == root }
    root
  end

  # A foreign root's packages, unpacked by the host's dpkg-deb without their
  # maintainer scripts: debootstrap's second stage runs those (and dpkg
  # itself) under qemu, five minutes a root, where the specs need only the
  # files (Ruby, gcc, RSpec). What the scripts would have made and a build
  # or the specs use is made here: the users and groups, and the linker's
  # cache (the root's own ldconfig, one emulated run).
  def unpack_foreign(root)
    debs = Dir[File.join(root, "var/cache/apt/archives/*.deb")]
    debs.each do |deb|
      system("dpkg-deb", "--extract", deb, root) or abort "debian_root: cannot unpack #{deb}"
    end
    %w[passwd group].each do |name|
      FileUtils.cp(File.join(root, "usr/share/base-passwd/#{name}.master"), File.join(root, "etc", name))
    end
    FileUtils.mkdir_p(File.join(root, "etc/ssl/certs"))
    system("chroot", root, "/sbin/ldconfig") or abort "debian_root: ldconfig failed in #{root}"
    FileUtils.rm_f(debs)
  end

  def host_arch
    `dpkg --print-architecture`.strip
  end

  # qemu-user-static registers its interpreters with binfmt_misc; the file
  # system must be mounted for that (it is not, in a container). Two roots
  # made at once may both try: the second mount fails "already mounted".
  def enable_binfmt(arch)
    register = "/proc/sys/fs/binfmt_misc/register"
    unless File.exist?(register)
      system("mount", "-t", "binfmt_misc", "binfmt_misc", "/proc/sys/fs/binfmt_misc", err: File::NULL) ||
        File.exist?(register) or abort "debian_root: cannot mount binfmt_misc"
    end
    name = { "arm64" => "aarch64", "s390x" => "s390x", "ppc64el" => "ppc64le", "armhf" => "arm" }.fetch(arch, arch)
    return if File.exist?("/proc/sys/fs/binfmt_misc/qemu-#{name}")

    system("update-binfmts", "--enable", "qemu-#{name}", out: File::NULL, err: File::NULL)
    File.exist?("/proc/sys/fs/binfmt_misc/qemu-#{name}") or
      abort "debian_root: qemu-#{name} is not registered with binfmt_misc (apt-get install qemu-user-static)"
  end

  # /dev/pts for the specs that run the command on a terminal (PTY.open).
  MOUNTS = [%w[proc proc -t proc], %w[/sys sys --bind], %w[/dev dev --bind], %w[/dev/pts dev/pts --bind],
            %w[/dev/shm dev/shm --bind]].freeze

  def run(root, command, source: Dir.pwd)
    File.exist?(File.join(root, ".bloomc-root-ready")) or abort "debian_root: #{root} is not a root made by ensure"
    # The host's resolver and certificate authorities: gems come through
    # the same network as the host's.
    FileUtils.cp("/etc/resolv.conf", File.join(root, "etc/resolv.conf"))
    FileUtils.cp("/etc/ssl/certs/ca-certificates.crt", File.join(root, "etc/ssl/certs/ca-certificates.crt"))
    copy_tree(source, File.join(root, "bloomc"))
    mounted = []
    begin
      MOUNTS.each do |what, where, *how|
        target = File.join(root, where)
        FileUtils.mkdir_p(target)
        system("mount", *how, what, target) or abort "debian_root: cannot mount #{what} on #{target}"
        mounted << target
      end
      env = ENV.select { |name, _| PASS_ENV.match?(name) }
      env = env.merge("PATH" => "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                      "HOME" => "/root", "LANG" => "C.UTF-8", "TMPDIR" => "/tmp")
      system("chroot", root, "/usr/bin/env", "-i", *env.map { |k, v| "#{k}=#{v}" }, "/bin/sh", "-c",
             "cd /bloomc && #{command}")
    ensure
      mounted.reverse_each { |target| system("umount", target) || system("umount", "-l", target) }
    end
  end

  # The work tree as git sees it (tracked and new files, not ignored ones:
  # no build products), in place of the last run's copy. Each file is new
  # (its time now), so that a build the root keeps makes it again.
  def copy_tree(source, dest)
    FileUtils.rm_rf(dest)
    FileUtils.mkdir_p(dest)
    files, status = Open3.capture2("git", "-C", source, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    abort "debian_root: #{source} is not a git work tree" unless status.success?
    files.split("\0").each do |file|
      from = File.join(source, file)
      next unless File.file?(from) # deleted but not yet staged

      to = File.join(dest, file)
      FileUtils.mkdir_p(File.dirname(to))
      FileUtils.cp(from, to)
      File.chmod(File.stat(from).mode, to)
    end
  end
end

if $PROGRAM_NAME == __FILE__
  case ARGV.shift
  when "ensure"
    suite, arch, *packages = ARGV
    abort "usage: debian_root.rb ensure SUITE ARCH PACKAGE..." unless arch && !packages.empty?
    puts DebianRoot.ensure_root(suite, arch, packages)
  when "run"
    root, command = ARGV
    abort "usage: debian_root.rb run ROOT COMMAND" unless command
    exit DebianRoot.run(root, command) ? 0 : 1
  else
    abort "usage: debian_root.rb ensure SUITE ARCH PACKAGE... | run ROOT COMMAND"
  end
end
