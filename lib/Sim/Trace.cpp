//===- Trace.cpp - Chrome trace and SVG timeline ----------------*- C++ -*-===//
//
// The trace follows the Trace Event Format that chrome://tracing and
// Perfetto read: one process per rank (thread 0: the compute stream, thread
// 1: the communication stream) and one process "links" with a thread per
// busy link, all as complete ("X") events in microseconds.
//
//===----------------------------------------------------------------------===//

#include "comm/Sim/Simulator.h"
#include "comm/Topology/TopologyPrinter.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cmath>
#include <map>
#include <set>

using namespace mlir;
using namespace mlir::comm;
using namespace mlir::comm::sim;

static constexpr unsigned kTracedLinks = 32;

/// The busiest links that have intervals, most used first.
static std::vector<uint64_t> tracedLinks(const SimResult &result) {
  std::vector<uint64_t> links;
  llvm::DenseSet<uint64_t> withIntervals;
  for (const LinkInterval &interval : result.linkIntervals)
    withIntervals.insert(interval.directedLink);
  for (const LinkUse &use : result.links)
    if (withIntervals.count(use.directedLink) && links.size() < kTracedLinks)
      links.push_back(use.directedLink);
  return links;
}

static std::string linkName(const Topology &topology, uint64_t directed) {
  LinkRef link = topology.getLink(directed / 2);
  bool reverse = directed & 1;
  return topology.getDeviceName(reverse ? link.b : link.a) + " -> " +
         topology.getDeviceName(reverse ? link.a : link.b) + " (" +
         stringifyLinkKind(link.props->kind).str() + ", " +
         formatBandwidth(link.props->bandwidthGBps) + ")";
}

std::string mlir::comm::sim::getTraceThreadName(uint64_t tid) {
  if (tid == 0)
    return "compute stream";
  if (tid == 1)
    return "comm stream";
  if (tid >= kTraceSendThread)
    return tid == kTraceSendThread
               ? "sends"
               : "sends " + std::to_string(tid - kTraceSendThread + 1);
  return "comm stream " + std::to_string(tid - 2);
}

void mlir::comm::sim::writeChromeTrace(const SimResult &result,
                                       const Topology &topology,
                                       llvm::raw_ostream &os) {
  // Written as it is made, one event at a time: the whole trace as one
  // JSON value took about 45 times the file's size in memory (10.7 GB for a
  // 194 MB trace) and ran out of it at 100,000 ops.
  llvm::json::OStream json(os);
  json.objectBegin();
  json.attributeBegin("traceEvents");
  json.arrayBegin();
  auto emit = [&](llvm::json::Value event) { json.value(event); };
  // Every rank's compute and backend streams, and each plan stream it used.
  std::map<uint64_t, std::set<uint64_t>> threads;
  for (const TraceEvent &event : result.events)
    threads[event.pid].insert(event.tid);
  for (auto &[rank, tids] : threads) {
    emit(llvm::json::Object{
        {"name", "process_name"},
        {"ph", "M"},
        {"pid", int64_t(rank)},
        {"args",
         llvm::json::Object{
             {"name", ("rank " + Twine(rank) + " (" +
                       topology.getDeviceName(topology.getGPU(rank)) + ")")
                          .str()}}}});
    tids.insert({0, 1});
    for (uint64_t tid : tids)
      emit(llvm::json::Object{
          {"name", "thread_name"},
          {"ph", "M"},
          {"pid", int64_t(rank)},
          {"tid", int64_t(tid)},
          {"args", llvm::json::Object{{"name", getTraceThreadName(tid)}}}});
  }
  // A transfer's events on its ranks, linked by flow arrows from the
  // lowest rank's event to each other rank's (Perfetto draws them).
  std::map<uint64_t, const TraceEvent *> flowStart;
  for (const TraceEvent &event : result.events) {
    llvm::json::Object args;
    for (const auto &[key, value] : event.args)
      args[key] = value;
    llvm::json::Object object{{"name", event.name},
                              {"cat", event.category},
                              {"ph", "X"},
                              {"pid", int64_t(event.pid)},
                              {"tid", int64_t(event.tid)},
                              {"ts", event.startUs},
                              {"dur", event.durationUs}};
    if (!args.empty())
      object["args"] = std::move(args);
    emit(std::move(object));
    if (event.flowId) {
      auto [it, first] = flowStart.try_emplace(event.flowId, &event);
      if (first)
        continue;
      const TraceEvent &from = *it->second;
      // One flow per arrow: ids are the transfer's id times the rank.
      int64_t id = int64_t(event.flowId) * 65536 + int64_t(event.pid);
      emit(llvm::json::Object{{"name", event.name},
                              {"cat", "transfer"},
                              {"ph", "s"},
                              {"id", id},
                              {"pid", int64_t(from.pid)},
                              {"tid", int64_t(from.tid)},
                              {"ts", from.startUs}});
      emit(llvm::json::Object{{"name", event.name},
                              {"cat", "transfer"},
                              {"ph", "f"},
                              {"bp", "e"},
                              {"id", id},
                              {"pid", int64_t(event.pid)},
                              {"tid", int64_t(event.tid)},
                              {"ts", event.startUs}});
    }
  }
  int64_t linksPid = result.ranks + 1;
  std::vector<uint64_t> links = tracedLinks(result);
  if (!links.empty())
    emit(llvm::json::Object{{"name", "process_name"},
                            {"ph", "M"},
                            {"pid", linksPid},
                            {"args", llvm::json::Object{{"name", "links"}}}});
  // A link's flows at once go on lanes of their own (one thread each,
  // named after the link), so that the events of one thread nest.
  std::map<uint64_t, std::vector<const LinkInterval *>> intervalsOf;
  for (const LinkInterval &interval : result.linkIntervals)
    if (interval.endUs > interval.startUs)
      intervalsOf[interval.directedLink].push_back(&interval);
  int64_t nextTid = 0;
  for (uint64_t link : links) {
    std::vector<const LinkInterval *> &list = intervalsOf[link];
    llvm::stable_sort(list, [](const LinkInterval *a, const LinkInterval *b) {
      return a->startUs < b->startUs;
    });
    // (end of its last interval, tid) per lane.
    SmallVector<std::pair<double, int64_t>, 4> lanes;
    auto newLane = [&]() {
      int64_t tid = nextTid++;
      std::string name = linkName(topology, link);
      if (!lanes.empty())
        name += " (" + std::to_string(lanes.size() + 1) + ")";
      emit(llvm::json::Object{{"name", "thread_name"},
                              {"ph", "M"},
                              {"pid", linksPid},
                              {"tid", tid},
                              {"args", llvm::json::Object{{"name", name}}}});
      lanes.push_back({0.0, tid});
      return lanes.size() - 1;
    };
    newLane();
    for (const LinkInterval *interval : list) {
      size_t lane = 0;
      while (lane < lanes.size() && lanes[lane].first > interval->startUs)
        ++lane;
      if (lane == lanes.size())
        lane = newLane();
      lanes[lane].first = interval->endUs;
      emit(llvm::json::Object{{"name", interval->label},
                              {"cat", "link"},
                              {"ph", "X"},
                              {"pid", linksPid},
                              {"tid", lanes[lane].second},
                              {"ts", interval->startUs},
                              {"dur", interval->endUs - interval->startUs}});
    }
  }
  json.arrayEnd();
  json.attributeEnd();
  json.attribute("displayTimeUnit", "ns");
  json.attribute("otherData",
                 llvm::json::Object{{"generator", "comm-sim"},
                                    {"topology", topology.getName().str()},
                                    {"step_time_us", result.stepTimeUs}});
  json.objectEnd();
  os << "\n";
}

void mlir::comm::sim::writeTimelineSvg(const SimResult &result,
                                       const Topology &topology,
                                       llvm::raw_ostream &os) {
  std::map<std::pair<uint64_t, uint64_t>, unsigned> rows; // (pid, tid) -> row
  for (const TraceEvent &event : result.events)
    rows.try_emplace({event.pid, event.tid}, 0);
  unsigned index = 0;
  for (auto &[key, row] : rows)
    row = index++;
  std::vector<uint64_t> links = tracedLinks(result);
  std::map<uint64_t, unsigned> linkRow;
  for (uint64_t link : links)
    linkRow[link] = index++;
  const double left = 260, width = 1100, rowHeight = 18, top = 30;
  // Below the rows: the time axis (ticks and labels), then the legend.
  double axisY = top + index * rowHeight + 4;
  double height = axisY + 60;
  double span = std::max(result.stepTimeUs, 1e-3);
  auto x = [&](double us) { return left + us / span * (width - left - 20); };
  os << llvm::formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" "
                      "height=\"{1}\" font-family=\"Helvetica\" "
                      "font-size=\"11\">\n",
                      width, height);
  os << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  os << llvm::formatv("<text x=\"10\" y=\"18\" font-size=\"13\">comm-sim "
                      "timeline on {0}: step {1:F1} us, exposed comm {2:F1} "
                      "us</text>\n",
                      escapeXml(topology.getName()), result.stepTimeUs,
                      result.exposedCommUs);
  // Ticks at 1, 2 or 5 times a power of ten, 5 to 10 of them, with a light
  // grid line each so that bars can be read against the axis.
  double decade = std::pow(10.0, std::floor(std::log10(span / 5)));
  double step = decade;
  for (double factor : {2.0, 5.0, 10.0})
    if (span / step > 10)
      step = decade * factor;
  for (double t = 0; t <= span * (1 + 1e-9); t += step) {
    os << llvm::formatv("<line x1=\"{0:F2}\" y1=\"{1}\" x2=\"{0:F2}\" "
                        "y2=\"{2}\" stroke=\"#e5e5e5\"/>\n",
                        x(t), top, axisY);
    os << llvm::formatv("<text x=\"{0:F2}\" y=\"{1}\" "
                        "text-anchor=\"middle\">{2}</text>\n",
                        x(t), axisY + 14,
                        step >= 1 ? llvm::formatv("{0:F0}", t).str()
                                  : llvm::formatv("{0:G3}", t).str());
  }
  os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"end\">"
                      "time (us)</text>\n",
                      left - 16, axisY + 14);
  auto color = [](StringRef category) {
    if (category == "compute")
      return "#4c9f4c";
    if (category == "comm")
      return "#d9534f";
    if (category == "comm (async)")
      return "#f0ad4e";
    if (category == "wait")
      return "#bbbbbb";
    return "#5b8fd9";
  };
  // A bar wide enough for text carries its name, cut to fit.
  auto label = [&](double x0, double w, double y, StringRef name) {
    size_t chars = static_cast<size_t>((w - 6) / 6.2);
    if (chars < 3)
      return;
    std::string text = name.size() > chars
                           ? (name.take_front(chars - 1) + "~").str()
                           : name.str();
    os << llvm::formatv("<text x=\"{0:F2}\" y=\"{1}\" font-size=\"10\" "
                        "fill=\"white\">{2}</text>\n",
                        x0 + 3, y + 12, escapeXml(text));
  };
  for (auto &[key, row] : rows) {
    double y = top + row * rowHeight;
    os << llvm::formatv("<text x=\"10\" y=\"{0}\">rank {1} {2}</text>\n",
                        y + 12, key.first, getTraceThreadName(key.second));
  }
  for (const TraceEvent &event : result.events) {
    double y = top + rows[{event.pid, event.tid}] * rowHeight;
    double x0 = x(event.startUs);
    double w = std::max(0.5, x(event.startUs + event.durationUs) - x0);
    os << llvm::formatv("<rect x=\"{0:F2}\" y=\"{1}\" width=\"{2:F2}\" "
                        "height=\"{3}\" fill=\"{4}\"><title>{5} {6:F2} us"
                        "</title></rect>\n",
                        x0, y + 2, w, rowHeight - 4, color(event.category),
                        escapeXml(event.name), event.durationUs);
    label(x0, w, y, event.name);
  }
  for (auto &[link, row] : linkRow) {
    double y = top + row * rowHeight;
    std::string name = linkName(topology, link);
    if (name.size() > 40)
      name = name.substr(0, 40);
    os << llvm::formatv("<text x=\"10\" y=\"{0}\">{1}</text>\n", y + 12,
                        escapeXml(name));
  }
  for (const LinkInterval &interval : result.linkIntervals) {
    auto it = linkRow.find(interval.directedLink);
    if (it == linkRow.end())
      continue;
    double y = top + it->second * rowHeight;
    os << llvm::formatv("<rect x=\"{0:F2}\" y=\"{1}\" width=\"{2:F2}\" "
                        "height=\"{3}\" fill=\"#5b8fd9\"><title>{4}</title>"
                        "</rect>\n",
                        x(interval.startUs), y + 2,
                        std::max(0.5, x(interval.endUs) - x(interval.startUs)),
                        rowHeight - 4, escapeXml(interval.label));
  }
  // The legend: what each colour is.
  double legendX = 10, legendY = axisY + 34;
  for (auto [category, text] :
       {std::pair<StringRef, StringRef>{"compute", "compute"},
        {"comm", "transfer (blocking)"},
        {"comm (async)", "transfer (async, overlaps compute)"},
        {"wait", "waiting"},
        {"link", "link busy"}}) {
    os << llvm::formatv("<rect x=\"{0}\" y=\"{1}\" width=\"12\" "
                        "height=\"12\" fill=\"{2}\"/>\n",
                        legendX, legendY, color(category));
    os << llvm::formatv("<text x=\"{0}\" y=\"{1}\">{2}</text>\n", legendX + 16,
                        legendY + 10, text);
    legendX += 40 + 6.2 * text.size();
  }
  os << "</svg>\n";
}
