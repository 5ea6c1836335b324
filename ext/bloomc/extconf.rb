# frozen_string_literal: true

require "mkmf"

# C99 and the full warning set; hidden visibility keeps the core's bf_ symbols
# out of the process-wide namespace (only Init_bloomc is exported).
# -Wextra goes in with -Wno-unused-parameter, as in Ruby's own build: alone it
# fails mkmf's probe on ruby.h's unused parameters and would be dropped.
append_cflags(["-std=c99", "-Wall", "-Wextra -Wno-unused-parameter", "-Wshadow", "-fvisibility=hidden"])

# The system calls that only some systems have: each is probed here and used
# under its HAVE_ macro (from $defs, which the core's bf_*.c files see too),
# with a fallback where it is missing (docs/INTERNALS.md: Platforms).
# BLOOMC_FALLBACKS=1 answers every check "no" as macOS or a BSD would (they
# have mincore, with a char vector), so that the fallbacks are built and run
# here too (`rake spec:fallbacks`); a comma list of the checks' names
# (e.g. fallocate,mincore) turns off only those.
FORCED_FALLBACKS = ENV.fetch("BLOOMC_FALLBACKS", "").split(",").map(&:strip)
$defs << "-DBLOOMC_FORCED_FALLBACKS" unless FORCED_FALLBACKS.empty?

def platform_check(name)
  forced = FORCED_FALLBACKS == ["1"] ? name != "mincore" : FORCED_FALLBACKS.include?(name)
  return yield unless forced

  message "checking for #{name}... no (BLOOMC_FALLBACKS)\n"
  false
end

# A compile test under -Werror (an undeclared function or constant fails it)
# that defines macro when it passes.
def platform_compiles(name, what, macro, src)
  found = platform_check(name) { checking_for(what) { try_compile(src, "-Werror") } }
  $defs << "-D#{macro}" if found
  found
end

# Reserving a mapped file's blocks (mapping.c): fallocate(2) on Linux,
# posix_fallocate elsewhere, and zeros written where neither is. Probed
# before -Werror: mkmf's probe casts the function to void (*)(), which
# -Wextra's -Wcast-function-type warns of for one that returns int.
platform_check("fallocate") { have_func("fallocate", "fcntl.h") }
platform_check("posix_fallocate") { have_func("posix_fallocate", "fcntl.h") }

# Resident bytes (bf_pages.c, for the specs): mincore's vector is unsigned
# char * on Linux, char * on macOS and the BSDs, where passing the other
# is a -Wpointer-sign error under -Werror.
if platform_check("mincore") { have_func("mincore", "sys/mman.h") }
  platform_compiles("mincore_unsigned_vector", "mincore with an unsigned char vector", "HAVE_MINCORE_UNSIGNED_VECTOR", <<~C)
    #include <sys/mman.h>
    int main(void) { static unsigned char vector[1]; return mincore(vector, 1, vector); }
  C
end

# Bulk commit (bf_pages.c): MADV_POPULATE_READ/WRITE, Linux 5.14. C library
# headers older than that lack the names: on Linux, and only there, the
# kernel's numbers stand in for them (an older kernel answers EINVAL).
platform_compiles("populate", "MADV_POPULATE_WRITE", "HAVE_MADV_POPULATE", <<~C)
  #include <sys/mman.h>
  #ifndef MADV_POPULATE_WRITE
  #ifndef __linux__
  #error "not Linux: no number to stand in for MADV_POPULATE_WRITE"
  #endif
  #define MADV_POPULATE_WRITE 23
  #endif
  int main(void) { static char page[1]; return madvise(page, 1, MADV_POPULATE_WRITE); }
C

# Transparent huge pages (bf_pages.c): the advice, and lifting the
# THP_DISABLE that Ruby 3.1 sets at boot.
platform_compiles("hugepage_advice", "MADV_HUGEPAGE", "HAVE_MADV_HUGEPAGE", <<~C)
  #include <sys/mman.h>
  int main(void) { static char page[1]; return madvise(page, 1, MADV_HUGEPAGE); }
C
platform_compiles("thp", "prctl(PR_SET_THP_DISABLE)", "HAVE_PRCTL_THP_DISABLE", <<~C)
  #include <sys/prctl.h>
  int main(void) { return prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0); }
C

# The continuous filter's lookups (clock.h): Linux's coarse clock.
# Linux's only: elsewhere a clock of that name may report its counter's
# resolution rather than how often it moves, which bloomc_lookup_now relies on.
platform_compiles("coarse_clock", "Linux's CLOCK_MONOTONIC_COARSE", "HAVE_CLOCK_MONOTONIC_COARSE", <<~C)
  #include <time.h>
  #ifndef __linux__
  #error "not Linux: only its coarse clock moves at the resolution it reports"
  #endif
  int main(void) { struct timespec resolution; return clock_getres(CLOCK_MONOTONIC_COARSE, &resolution); }
C

# A sparse file's holes (mapping.c): skipped by the checksum, and seen by
# the reservation. Without them all of a file is data.
platform_compiles("seek_hole", "SEEK_DATA and SEEK_HOLE", "HAVE_SEEK_HOLE", <<~C)
  #include <unistd.h>
  int main(void) { return lseek(0, 0, SEEK_DATA) < 0 || lseek(0, 0, SEEK_HOLE) < 0; }
C

if ENV["BLOOMC_DEBUG"] == "1"
  # CI and development: warnings are errors, asserts and Ruby's own checks on.
  append_cflags(%w[-Werror -O1 -g -DRUBY_DEBUG=1])
else
  append_cflags(%w[-O3 -DNDEBUG])
end

if (sanitizers = ENV["BLOOMC_SANITIZE"]) && !sanitizers.empty?
  # `rake sanitize`: e.g. BLOOMC_SANITIZE=address,undefined; every report aborts.
  # Stack redzones are off: Ruby raises by longjmp, which ASan cannot see in an
  # uninstrumented interpreter, so it would leave stale poison on the stack.
  # Heap accesses (the bit and bucket arrays, key bytes) are all checked.
  append_cflags(["-fsanitize=#{sanitizers}", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-g"])
  append_cflags(["--param=asan-stack=0"]) if sanitizers.include?("address")
  append_ldflags(["-fsanitize=#{sanitizers}"])
end

# Where the compiler and the C library can pick a function's version by CPU at
# load time (GCC or Clang on x86-64 glibc), the continuous filter's sweep is
# also built for AVX2.
clones = <<~C
  __attribute__((target_clones("avx2", "default"))) static int twice(int x) { return 2 * x; }
  int main(void) { return twice(0); }
C
$defs << "-DBLOOMC_TARGET_CLONES" if try_compile(clones, "-Werror")

have_func("rb_ext_ractor_safe", "ruby.h")

create_makefile("bloomc/bloomc")
