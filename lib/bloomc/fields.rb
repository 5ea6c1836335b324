# frozen_string_literal: true

module Bloomc
  class BitField
    # A short summary; to_s gives the bits themselves.
    def inspect
      "#<#{self.class} size=#{size} set=#{total_set}>"
    end
  end

  class BitBucketField
    # A short summary; to_s gives the buckets themselves.
    def inspect
      "#<#{self.class} bits=#{bits} size=#{size} set=#{total_set}>"
    end
  end
end
