# frozen_string_literal: true

require "mkmf"

# C99 and the full warning set; hidden visibility keeps the core's bf_ symbols
# out of the process-wide namespace (only Init_bloomc is exported).
# -Wextra goes in with -Wno-unused-parameter, as in Ruby's own build: alone it
# fails mkmf's probe on ruby.h's unused parameters and would be dropped.
append_cflags(["-std=c99", "-Wall", "-Wextra -Wno-unused-parameter", "-Wshadow", "-fvisibility=hidden"])

# Reserving a mapped file's blocks (mapping.c): fallocate(2) on Linux,
# posix_fallocate elsewhere, and zeros written where neither is. Probed
# before -Werror: mkmf's probe casts the function to void (*)(), which
# -Wextra's -Wcast-function-type warns of for one that returns int.
have_func("fallocate", "fcntl.h")
have_func("posix_fallocate", "fcntl.h")

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
