# frozen_string_literal: true

# Whether the optional gems a spec needs (rack, puma, ferrum) are installed.
# A spec skips without them, unless a BLOOMC_*_REQUIRED variable says they
# must be there (CI sets them).
module OptionalGems
  def self.installed?(*names)
    names.all? do |name|
      Gem::Specification.find_by_name(name)
    rescue Gem::MissingSpecError
      false
    end
  end
end
