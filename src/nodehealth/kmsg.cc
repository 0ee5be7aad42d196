// Parsing of kernel log lines into KernelEvents (kmsg.h). No I/O.
#include <algorithm>
#include <charconv>

#include "nodehealth/bdf.h"
#include "nodehealth/kmsg.h"

namespace quotient::nodehealth {
namespace {

// A line naming a GPU's address counts for "fallen off the bus" this many lines later.
constexpr int kGpuBdfLineMemory = 4;

std::string_view TrimSpaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

bool IsDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<uint64_t> ParseUnsigned(std::string_view s) {
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// /dev/kmsg writes non-printable bytes (and '\') as \xNN.
std::string Unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] == 'x' && HexDigit(s[i + 2]) >= 0 &&
        HexDigit(s[i + 3]) >= 0) {
      out.push_back(static_cast<char>(HexDigit(s[i + 2]) * 16 + HexDigit(s[i + 3])));
      i += 3;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// "<pri>,<seq>,<ts_usec>,<flags>[,...];": the record prefix of /dev/kmsg.
std::optional<LogRecord> ParseKmsgRecord(std::string_view line) {
  const size_t semicolon = line.find(';');
  if (semicolon == std::string_view::npos) return std::nullopt;
  std::string_view prefix = line.substr(0, semicolon);
  std::vector<std::string_view> fields;
  for (size_t comma = prefix.find(','); comma != std::string_view::npos; comma = prefix.find(',')) {
    fields.push_back(prefix.substr(0, comma));
    prefix.remove_prefix(comma + 1);
  }
  fields.push_back(prefix);
  if (fields.size() < 4 || !IsDigits(fields[0]) || !IsDigits(fields[1]) || !IsDigits(fields[2])) {
    return std::nullopt;
  }
  LogRecord record;
  record.seq = ParseUnsigned(fields[1]);
  record.ts_usec = ParseUnsigned(fields[2]);
  if (!record.seq || !record.ts_usec) return std::nullopt;
  record.message = Unescape(line.substr(semicolon + 1));
  return record;
}

// " SUBSYSTEM=pci": a dictionary line continuing the previous kmsg record.
bool IsDictionaryLine(std::string_view line) {
  if (line.size() < 3 || line[0] != ' ' || line[1] == ' ') return false;
  const size_t equals = line.find('=');
  if (equals == std::string_view::npos) return false;
  return std::all_of(line.begin() + 1, line.begin() + static_cast<std::ptrdiff_t>(equals),
                     [](char c) { return (c >= 'A' && c <= 'Z') || c == '_' || c == '.'; });
}

// The word after `marker` with trailing punctuation removed, as a normalised PCI address.
std::optional<std::string> BdfAfter(std::string_view line, std::string_view marker) {
  for (size_t at = line.find(marker); at != std::string_view::npos;
       at = line.find(marker, at + 1)) {
    std::string_view rest = line.substr(at + marker.size());
    const size_t end = rest.find_first_of(" ,;()");
    std::string_view word = rest.substr(0, end);
    while (!word.empty() && word.back() == ':') word.remove_suffix(1);
    if (std::optional<std::string> bdf = NormalizeBdf(word)) return bdf;
  }
  return std::nullopt;
}

// "<tag> (PCI:0000:3b:00): <code>[, <rest>]" from just after `tag`. Returns the rest.
struct CodedLine {
  std::string bdf;
  int code = 0;
  std::string_view rest;
};
std::optional<CodedLine> ParseCoded(std::string_view after_tag) {
  after_tag = TrimSpaces(after_tag);
  if (after_tag.empty() || after_tag.front() != '(') return std::nullopt;
  const size_t close = after_tag.find("):");
  if (close == std::string_view::npos) return std::nullopt;
  const std::optional<std::string> bdf = NormalizeBdf(after_tag.substr(1, close - 1));
  if (!bdf) return std::nullopt;
  std::string_view tail = TrimSpaces(after_tag.substr(close + 2));
  size_t digits = 0;
  while (digits < tail.size() && tail[digits] >= '0' && tail[digits] <= '9') ++digits;
  const std::optional<uint64_t> code = ParseUnsigned(tail.substr(0, digits));
  if (!code || *code > 1000000) return std::nullopt;
  tail.remove_prefix(digits);
  if (!tail.empty() && tail.front() != ',') return std::nullopt;  // "79abc": not a code
  if (!tail.empty()) tail.remove_prefix(1);
  return CodedLine{*bdf, static_cast<int>(*code), TrimSpaces(tail)};
}

bool HasWord(std::string_view text, std::string_view word) {
  for (size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const bool starts = at == 0 || text[at - 1] == ' ' || text[at - 1] == ',';
    const size_t end = at + word.size();
    const bool ends = end == text.size() || text[end] == ' ' || text[end] == ',';
    if (starts && ends) return true;
  }
  return false;
}

// NVLink5 XIDs and SXids say "Fatal" or "Nonfatal"/"Non-fatal"; others say neither.
std::optional<bool> StatedFatality(std::string_view text) {
  if (HasWord(text, "Nonfatal") || HasWord(text, "Non-fatal")) return false;
  if (HasWord(text, "Fatal")) return true;
  return std::nullopt;
}

// XID 154: "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)".
std::optional<RecoveryAction> StatedRecoveryAction(std::string_view text) {
  const size_t to = text.rfind(" to 0x");
  if (to == std::string_view::npos) return std::nullopt;
  std::string_view hex = text.substr(to + 6);
  hex = hex.substr(0, hex.find_first_not_of("0123456789abcdefABCDEF"));
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), value, 16);
  if (ec != std::errc() || hex.empty()) return std::nullopt;
  switch (value) {
    case 0:
      return RecoveryAction::kNone;
    case 1:
      return RecoveryAction::kGpuReset;
    case 2:
      return RecoveryAction::kNodeReboot;
    case 3:
      return RecoveryAction::kDrainP2p;
    case 4:
      return RecoveryAction::kDrainAndReset;
    default:
      return std::nullopt;  // RECOVER_IMEX_DOMAIN and later: not ours to act on
  }
}

bool IsNicFatal(std::string_view line) {
  if (line.find("mlx5_core") == std::string_view::npos) return false;
  for (std::string_view pattern : {"health compromised", "unrecoverable hardware error",
                                   "Will cause a leak of a command resource"}) {
    if (line.find(pattern) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace

std::optional<LogRecord> ParseLogLine(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (IsDictionaryLine(line)) return std::nullopt;
  if (std::optional<LogRecord> record = ParseKmsgRecord(line)) return record;
  return LogRecord{std::nullopt, std::nullopt, std::string(TrimSpaces(line))};
}

std::vector<KernelEvent> KernelLogParser::Feed(std::string_view message) {
  std::vector<KernelEvent> events;
  size_t start = 0;
  while (start <= message.size()) {
    const size_t newline = message.find('\n', start);
    const std::string_view line =
        message.substr(start, newline == std::string_view::npos ? newline : newline - start);
    if (std::optional<KernelEvent> event = ParseLine(line)) events.push_back(std::move(*event));
    if (newline == std::string_view::npos) break;
    start = newline + 1;
  }
  return events;
}

std::optional<KernelEvent> KernelLogParser::ParseLine(std::string_view line) {
  ++lines_since_gpu_bdf_;
  KernelEvent event;
  if (size_t at = line.find("NVRM: Xid"); at != std::string_view::npos) {
    const std::optional<CodedLine> coded = ParseCoded(line.substr(at + 9));
    if (!coded) return std::nullopt;
    event.kind = KernelEventKind::kXid;
    event.bdf = coded->bdf;
    event.code = coded->code;
    event.text = std::string(coded->rest);
    event.fatal = StatedFatality(coded->rest);
    if (event.code == 154) event.recovery_action = StatedRecoveryAction(coded->rest);
    return event;
  }
  if (size_t at = line.find("SXid"); at != std::string_view::npos) {
    const std::optional<CodedLine> coded = ParseCoded(line.substr(at + 4));
    if (!coded) return std::nullopt;
    event.kind = KernelEventKind::kSxid;
    event.bdf = coded->bdf;
    event.code = coded->code;
    event.text = std::string(coded->rest);
    event.fatal = StatedFatality(coded->rest);
    return event;
  }
  if (std::optional<std::string> bdf = BdfAfter(line, "GPU ")) {
    recent_gpu_bdf_ = *bdf;
    lines_since_gpu_bdf_ = 0;
  }
  if (line.find("fallen off the bus") != std::string_view::npos) {
    event.kind = KernelEventKind::kFallenOffBus;
    if (lines_since_gpu_bdf_ <= kGpuBdfLineMemory) event.bdf = recent_gpu_bdf_;
    const size_t nvrm = line.find("NVRM:");
    event.text = std::string(TrimSpaces(nvrm == std::string_view::npos ? line : line.substr(nvrm)));
    return event;
  }
  if (IsNicFatal(line)) {
    event.kind = KernelEventKind::kNicFatal;
    event.bdf = BdfAfter(line, "mlx5_core ").value_or("");
    const size_t driver = line.find("mlx5_core");
    event.text = std::string(TrimSpaces(line.substr(driver)));
    return event;
  }
  return std::nullopt;
}

}  // namespace quotient::nodehealth
