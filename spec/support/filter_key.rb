# frozen_string_literal: true

# A filter key as the filters see it: a Symbol is its name, a String its
# bytes (whatever its encoding), an Integer its value. The reference models
# of the bad-input matrix and of the model fuzzers tell keys apart by it.
module FilterKey
  module_function

  def id(key)
    case key
    when Symbol then [:bytes, key.to_s.b]
    when String then [:bytes, key.b]
    else [:int, key]
    end
  end
end
