// Device profiles (the built-in JSON files, user files, malformed files, calibration) and the
// roofline estimate on them.
#include <QtTest>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "cost/device_profile.h"
#include "util/embedded.h"
#include "cost/roofline.h"
#include "profile/host_calibration.h"
#include "sanitizers.h"
#include "test_paths.h"

using namespace msa;

namespace {

// A small valid profile to mutate: 1 TFLOP/s float16 cube, 0.1 TFLOP/s float16 vector,
// 100 GB/s, 1 us per launch, metadata ops elided, float32 computed in float16.
nlohmann::json baseProfile() {
  return nlohmann::json::parse(R"({
    "schema": "msadvisor-device/1", "id": "toy", "display_name": "Toy NPU", "kind": "npu",
    "sources": {"s": "the test"},
    "peak_tflops": {
      "cube": {"float16": {"value": 1, "origin": "quoted", "source": "s"}},
      "vector": {"float16": {"value": 0.1, "origin": "derived", "source": "s", "formula": "cube / 10"},
                 "float32": {"value": 0.05, "origin": "assumed", "source": "s"}}},
    "memory_bandwidth_gbps": {"value": 100, "origin": "quoted", "source": "s"},
    "launch_overhead_us": {"value": 1, "origin": "assumed", "source": "s"},
    "cube_block": {"value": 16, "origin": "quoted", "source": "s"},
    "c0": {"float16": {"value": 16, "origin": "quoted", "source": "s"}},
    "default_precision": {"policy": "fp32_to_fp16", "origin": "quoted", "source": "s"},
    "elide_metadata_ops": {"value": true, "origin": "assumed", "source": "s"},
    "fold_constants": {"value": true, "origin": "assumed", "source": "s"}
  })");
}

DeviceProfile toy() {
  auto d = parseDevice(baseProfile().dump(), "toy.json");
  if (!d) qFatal("%s", d.error().describe().c_str());
  return *d;
}

OpCost work(double flops, double bytesRead, double bytesWritten, ComputeUnit unit, DType t = DType::Float16) {
  OpCost c;
  c.known = true;
  c.flops = flops;
  c.bytesRead = bytesRead;
  c.bytesWritten = bytesWritten;
  c.unit = unit;
  c.computeType = t;
  return c;
}

}  // namespace

class TestDevice : public QObject {
  Q_OBJECT
 private slots:
  void builtinProfilesLoadWithSources() {
    const auto ids = builtinDevices();
    const std::vector<std::string> expected = {"ascend310p", "ascend910",   "ascend910b", "ascend910b1",
                                               "ascend910b2", "ascend910b4", "cpu-host"};
    QCOMPARE(ids, expected);
    for (const auto& id : ids) {
      auto d = loadDevice(id);
      QVERIFY2(d.ok(), d.ok() ? "" : d.error().describe().c_str());
      QCOMPARE(d->id, id);
      QVERIFY(!d->displayName.empty());
      // A Chinese name for Chinese reports and the desktop app in 简体中文 (no English word in it
      // but the product's and CANN's names for its parts).
      QVERIFY2(!d->displayNameZh.empty(), id.c_str());
      QVERIFY2(d->displayNameZh != d->displayName, id.c_str());
      QVERIFY(d->memoryBandwidth.value > 0);
      QVERIFY(d->peak(ComputeUnit::Cube, DType::Float).has_value());
      QVERIFY(d->peak(ComputeUnit::Vector, DType::Float).has_value());
      for (const auto& [key, fig] : d->figures()) {
        const std::string what = id + " " + key;
        QVERIFY2(!fig->source.empty(), what.c_str());
        QVERIFY2(d->sources.count(fig->source) && !d->sources.at(fig->source).empty(), what.c_str());
        if (fig->origin == FigureOrigin::Derived) QVERIFY2(!fig->formula.empty(), what.c_str());
      }
      if (d->kind == DeviceProfile::Kind::Npu) {
        QCOMPARE(d->cubeBlock.value, 16.0);
        QCOMPARE(d->c0.at(DType::Float16).value, 16.0);
        QCOMPARE(d->c0.at(DType::Int8).value, 32.0);
        QCOMPARE(d->precision, PrecisionPolicy::Fp32ToFp16);
        // The matrix unit is far faster than the vector unit on every Ascend part.
        QVERIFY(*d->peak(ComputeUnit::Cube, DType::Float16) > 10 * *d->peak(ComputeUnit::Vector, DType::Float16));
      }
    }
  }

  // The derived 910B and 310P3 figures follow from CANN's platform_config (cores, cube_freq,
  // ddr_rate); float32 on the cube is a 16x8x16 block (half the float16 MACs per cycle).
  void derivedFiguresMatchTheIni() {
    auto b = loadDevice("ascend910b");
    QVERIFY(b.ok());
    QCOMPARE(*b->peak(ComputeUnit::Cube, DType::Float16), 20 * 4096 * 2 * 1.8e9);
    QCOMPARE(*b->peak(ComputeUnit::Cube, DType::Float), 20 * 2048 * 2 * 1.8e9);
    QCOMPARE(*b->peak(ComputeUnit::Cube, DType::Int8), 2 * 20 * 4096 * 2 * 1.8e9);
    QCOMPARE(b->memoryBandwidth.value, 32 * 1.8e9 * 20);
    for (auto [id, cores, ghz, l2mib] : {std::tuple{"ascend910b1", 24, 1.85, 192.0}, std::tuple{"ascend910b2", 24, 1.8, 192.0},
                                         std::tuple{"ascend910b4", 20, 1.5, 96.0}}) {
      auto d = loadDevice(id);
      QVERIFY(d.ok());
      QVERIFY(qAbs(*d->peak(ComputeUnit::Cube, DType::Float16) - cores * 4096 * 2 * ghz * 1e9) < 1e9);
      QVERIFY(qAbs(*d->peak(ComputeUnit::Cube, DType::Float) - cores * 2048 * 2 * ghz * 1e9) < 1e9);
      QVERIFY(qAbs(d->memoryBandwidth.value - 32 * ghz * 1e9 * cores) < 1e8);
      QCOMPARE(d->l2Size.value, l2mib * 1024 * 1024);
      QVERIFY(d->l2Bandwidth.value > d->memoryBandwidth.value);
      QVERIFY(d->taskFloor.value > 0 && d->taskFloor.value < 1e-6);
    }
    // The 910A: 32 cores at 1.0 GHz, as its real info.json says; no float32 cube rate.
    auto a = loadDevice("ascend910");
    QVERIFY(a.ok());
    QCOMPARE(*a->peak(ComputeUnit::Cube, DType::Float16), 32 * 4096 * 2 * 1.0e9);
    auto p = loadDevice("ascend310p");
    QVERIFY(p.ok());
    QCOMPARE(*p->peak(ComputeUnit::Cube, DType::Float16), 8 * 4096 * 2 * 1.06e9);
    QVERIFY(qAbs(p->memoryBandwidth.value - 17 * 1.06e9 * 8) < 1e8);
  }

  // Shipped files cite primary sources: no development machine's path, no private note.
  void shippedFilesCiteNoLocalNote() {
    for (const embedded::File& f : embedded::files()) {
      const std::string text(f.bytes);
      QVERIFY2(text.find("/work/") == std::string::npos, std::string(f.name).c_str());
      if (f.name.starts_with("devices/") || f.name.starts_with("ascend/") || f.name == "rules/kernel.json" ||
          f.name == "rules/profile.json")
        QVERIFY2(text.find("ascend.md") == std::string::npos && text.find("environment.md") == std::string::npos,
                 std::string(f.name).c_str());
    }
  }

  void peakFallbacks() {
    auto b = loadDevice("ascend910b");
    QVERIFY(b.ok());
    // The 910B has a float32 cube rate; the 910 has none and runs float32 cube work as float16;
    // int64 vector work uses the int32 figure.
    QCOMPARE(*b->peak(ComputeUnit::Cube, DType::Float), *b->peak(ComputeUnit::Cube, DType::Float16) / 2);
    auto a = loadDevice("ascend910");
    QVERIFY(a.ok());
    QCOMPARE(*a->peak(ComputeUnit::Cube, DType::Float), *a->peak(ComputeUnit::Cube, DType::Float16));
    QCOMPARE(*b->peak(ComputeUnit::Vector, DType::Int64), *b->peak(ComputeUnit::Vector, DType::Int32));
    QVERIFY(!b->peak(ComputeUnit::Memory, DType::Float16).has_value());
    QCOMPARE(b->computeType(DType::Float), DType::Float16);
    QCOMPARE(b->computeType(DType::Int64), DType::Int64);
    auto cpu = loadDevice("cpu-host");
    QVERIFY(cpu.ok());
    // A CPU has one peak per type whatever the unit.
    QCOMPARE(*cpu->peak(ComputeUnit::Cube, DType::Float), *cpu->peak(ComputeUnit::Vector, DType::Float));
    QCOMPARE(cpu->computeType(DType::Float), DType::Float);
    QCOMPARE(*cpu->ridgePoint(ComputeUnit::Cube, DType::Float), *cpu->peak(ComputeUnit::Cube, DType::Float) /
                                                                   cpu->memoryBandwidth.value);
  }

  void userFileAndRoundTrip() {
    test::TempDir dir("device");
    auto b = loadDevice("ascend910b");
    QVERIFY(b.ok());
    nlohmann::json j = b->toJson();
    j["id"] = "my910b";
    j["memory_bandwidth_gbps"]["value"] = 1600;
    j["memory_bandwidth_gbps"]["origin"] = "quoted";
    j["memory_bandwidth_gbps"]["source"] = "product_quote";
    const auto path = dir / "my910b.json";
    std::ofstream(path) << j.dump(2);
    auto mine = loadDevice(path.string());
    QVERIFY2(mine.ok(), mine.ok() ? "" : mine.error().describe().c_str());
    QCOMPARE(mine->id, std::string("my910b"));
    QCOMPARE(mine->memoryBandwidth.value, 1600e9);
    QCOMPARE(*mine->peak(ComputeUnit::Cube, DType::Float16), *b->peak(ComputeUnit::Cube, DType::Float16));
    QCOMPARE(mine->figures().size(), b->figures().size());
  }

  void unknownDeviceNamesTheBuiltins() {
    auto d = loadDevice("ascend999");
    QVERIFY(!d.ok());
    QCOMPARE(d.error().kind, ErrorKind::Device);
    QVERIFY2(d.error().message.find("ascend910b") != std::string::npos, d.error().message.c_str());
  }

  void malformed_data() {
    QTest::addColumn<QString>("patch");  // JSON merge patch applied to the base profile
    QTest::addColumn<QString>("fragment");
    QTest::newRow("missing bandwidth") << R"({"memory_bandwidth_gbps": null})" << "key 'memory_bandwidth_gbps': missing";
    QTest::newRow("negative peak") << R"({"peak_tflops": {"cube": {"float16": {"value": -3}}}})"
                                   << "peak_tflops.cube.float16.value";
    QTest::newRow("string value") << R"({"launch_overhead_us": {"value": "fast"}})" << "launch_overhead_us.value";
    QTest::newRow("unknown source") << R"({"cube_block": {"source": "nowhere"}})" << "not a key of";
    QTest::newRow("derived without formula") << R"({"peak_tflops": {"vector": {"float16": {"formula": null}}}})"
                                             << "peak_tflops.vector.float16.formula";
    QTest::newRow("bad origin") << R"({"cube_block": {"origin": "rumour"}})" << "cube_block.origin";
    QTest::newRow("bad kind") << R"({"kind": "gpu"})" << "key 'kind'";
    QTest::newRow("typo key") << R"({"memory_bandwith_gbps": 3})" << "memory_bandwith_gbps";
    QTest::newRow("unknown unit") << R"({"peak_tflops": {"tensor": {"float16": {"value": 1}}}})" << "peak_tflops.tensor";
    QTest::newRow("unknown dtype") << R"({"peak_tflops": {"cube": {"float17": {"value": 1}}}})" << "float17";
    QTest::newRow("bad policy") << R"({"default_precision": {"policy": "int4"}})" << "default_precision.policy";
    QTest::newRow("wrong schema") << R"({"schema": "other/2"})" << "key 'schema'";
    QTest::newRow("no sources") << R"({"sources": null})" << "key 'sources'";
    QTest::newRow("fold flag not bool") << R"({"fold_constants": {"value": 1}})" << "fold_constants.value";
  }
  void malformed() {
    QFETCH(QString, patch);
    QFETCH(QString, fragment);
    nlohmann::json j = baseProfile();
    j.merge_patch(nlohmann::json::parse(patch.toStdString()));
    auto d = parseDevice(j.dump(), "bad.json");
    QVERIFY(!d.ok());
    QCOMPARE(d.error().kind, ErrorKind::Device);
    const std::string text = d.error().describe();
    QVERIFY2(text.find(fragment.toStdString()) != std::string::npos, text.c_str());
    QVERIFY2(text.find("bad.json") != std::string::npos, text.c_str());
  }

  void notJson() {
    auto d = parseDevice("{\"schema\": ", "broken.json");
    QVERIFY(!d.ok());
    QVERIFY(d.error().describe().find("not valid JSON") != std::string::npos);
  }

  void calibrationOverrides() {
    auto cpu = loadDevice("cpu-host");
    QVERIFY(cpu.ok());
    DeviceProfile::Calibration c;
    c.flopsPerSecond[DType::Float] = 123e9;
    c.bytesPerSecond = 17e9;
    c.source = "unit test measurement";
    const DeviceProfile cal = cpu->withCalibration(c);
    QCOMPARE(*cal.peak(ComputeUnit::Cube, DType::Float), 123e9);
    QCOMPARE(cal.memoryBandwidth.value, 17e9);
    QCOMPARE(cal.memoryBandwidth.origin, FigureOrigin::Calibrated);
    QCOMPARE(cal.sources.at(cal.memoryBandwidth.source), std::string("unit test measurement"));
    QCOMPARE(cal.launchOverhead.value, cpu->launchOverhead.value);  // not measured: unchanged
    QCOMPARE(cal.launchOverhead.origin, FigureOrigin::Assumed);
    // The calibrated profile writes and reads back as a valid file.
    auto back = parseDevice(cal.toJson().dump(), "calibrated.json");
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().describe().c_str());
    QCOMPARE(back->memoryBandwidth.origin, FigureOrigin::Calibrated);
  }

  void hostCalibrationOverlay() {
    auto cpu = loadDevice("cpu-host");
    QVERIFY(cpu.ok());
    HostCalibration m;
    m.gflops = 200;  // 4x the profile's assumed float32 peak
    m.bandwidthGBs = 25;
    m.cpu = "Test CPU";
    m.runtime = "onnxruntime 1.21";
    m.threads = 2;
    const DeviceProfile cal = withHostCalibration(*cpu, m);
    QCOMPARE(*cal.peak(ComputeUnit::Cube, DType::Float), 200e9);
    QCOMPARE(cal.memoryBandwidth.value, 25e9);
    const double ratio = *cpu->peak(ComputeUnit::Vector, DType::Int8) / *cpu->peak(ComputeUnit::Vector, DType::Float);
    QCOMPARE(*cal.peak(ComputeUnit::Vector, DType::Int8), 200e9 * ratio);  // keeps its ratio to float32
    for (const auto& [key, fig] : cal.figures())
      if (key.starts_with("peak_tflops")) QVERIFY2(fig->source == "calibration", key.c_str());
    QVERIFY(cal.sources.at("calibration").find("Test CPU") != std::string::npos);
    QCOMPARE(cal.launchOverhead.origin, FigureOrigin::Assumed);  // not measured
    // The name no longer calls the figures defaults.
    QVERIFY2(cal.displayName.find("calibrated: 200\u202fGFLOP/s, 25.0\u202fGB/s") != std::string::npos, cal.displayName.c_str());
  }

  // A calibration taken while other processes held the cores says so (cpu_share), is not served
  // from the cache until three such measurements in a row, and the next measurement keeps the
  // better figures. Seen on the first analysis
  // beside a test run: 207 GFLOP/s and 18.5 GB/s cached for 30 days, against 341 and 41.9 quiet.
  void contendedCalibrationIsMeasuredAgain() {
    if (test::kSanitized) QSKIP("a sanitizer's own threads take CPU time: the share says nothing");
    QTemporaryDir dir;
    const QByteArray saved = qgetenv("XDG_CONFIG_HOME");
    qputenv("XDG_CONFIG_HOME", dir.path().toUtf8());
    CalibrationOptions o;
    o.matmulN = 384;
    o.addElements = 1 << 21;
    o.repeats = 5;
    // A busy process on every core while it measures.
    std::vector<pid_t> burners;
    for (unsigned k = 0; k < std::max(1u, std::thread::hardware_concurrency()); ++k)
      if (const pid_t pid = fork(); pid == 0) {
        std::atomic<unsigned long> spin{0};
        for (;;) spin.fetch_add(1, std::memory_order_relaxed);
      } else if (pid > 0) {
        burners.push_back(pid);
      }
    auto busy = measureHost(o);
    for (pid_t pid : burners) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    QVERIFY2(busy, busy ? "" : busy.error().describe().c_str());
    QVERIFY2(busy->cpuShare < 0.75 && contended(*busy), qPrintable(QString::number(busy->cpuShare)));
    // The cache: a contended record is measured again, and its better figure stands.
    HostCalibration record = *busy;
    record.gflops = 1e6;
    {
      std::filesystem::create_directories(calibrationCachePath().parent_path());
      std::ofstream(calibrationCachePath()) << toJson(record).dump();
    }
    // Those that never measure (the re-estimate of an edited model) use it as the analysis did.
    auto asTheAnalysisDid = cachedHostCalibration(o);
    QVERIFY(asTheAnalysisDid && asTheAnalysisDid->gflops == 1e6);
    bool fromCache = true;
    auto again = hostCalibration(false, Progress::none(), &fromCache, o);
    QVERIFY2(again, again ? "" : again.error().describe().c_str());
    QVERIFY(!fromCache);
    QCOMPARE(again->gflops, 1e6);
    // Contended in three measurements in a row: a host this busy keeps its best figures rather
    // than measuring on every analysis.
    QVERIFY(record.cpuShare < 0.75);
    record.contendedMeasurements = 2;
    QVERIFY(!reusable(record));
    record.contendedMeasurements = 3;
    QVERIFY(reusable(record));
    std::ofstream(calibrationCachePath()) << toJson(record).dump();
    fromCache = false;
    auto busyHost = hostCalibration(false, Progress::none(), &fromCache, o);
    QVERIFY(busyHost && fromCache && busyHost->gflops == 1e6 && busyHost->contendedMeasurements == 3);
    // A record with the runtime's full share is served as it is.
    record.cpuShare = 0.98;
    std::ofstream(calibrationCachePath()) << toJson(record).dump();
    auto cached = cachedHostCalibration(o);
    QVERIFY(cached && cached->gflops == 1e6 && cached->cpuShare == 0.98);
    if (saved.isNull()) qunsetenv("XDG_CONFIG_HOME");
    else qputenv("XDG_CONFIG_HOME", saved);
  }

  // A contended measurement never replaces an uncontended record: `calibrate --refresh` on a busy
  // machine keeps the record it had (the issue saw 458 -> 134 -> 179 GFLOP/s rewritten between
  // analyses, and every optimum moved with it).
  void contendedCalibrationNeverReplacesABetterRecord() {
    if (test::kSanitized) QSKIP("a sanitizer's own threads take CPU time: the share says nothing");
    QTemporaryDir dir;
    const QByteArray saved = qgetenv("XDG_CONFIG_HOME");
    qputenv("XDG_CONFIG_HOME", dir.path().toUtf8());
    CalibrationOptions o;
    o.matmulN = 384;
    o.addElements = 1 << 21;
    o.repeats = 5;
    auto quiet = measureHost(o);
    QVERIFY2(quiet, quiet ? "" : quiet.error().describe().c_str());
    HostCalibration record = *quiet;
    record.gflops = 123456;  // recognisable
    record.contended = false;
    record.cpuShare = 0.99;
    std::filesystem::create_directories(calibrationCachePath().parent_path());
    std::ofstream(calibrationCachePath()) << toJson(record).dump();
    std::vector<pid_t> burners;
    for (unsigned k = 0; k < std::max(1u, std::thread::hardware_concurrency()); ++k)
      if (const pid_t pid = fork(); pid == 0) {
        std::atomic<unsigned long> spin{0};
        for (;;) spin.fetch_add(1, std::memory_order_relaxed);
      } else if (pid > 0) {
        burners.push_back(pid);
      }
    bool fromCache = false;
    auto refreshed = hostCalibration(true, Progress::none(), &fromCache, o);
    for (pid_t pid : burners) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    QVERIFY2(refreshed, refreshed ? "" : refreshed.error().describe().c_str());
    QVERIFY(fromCache);
    QCOMPARE(refreshed->gflops, 123456.0);
    QVERIFY(!refreshed->contended);
    auto onDisk = cachedHostCalibration(o);
    QVERIFY(onDisk && onDisk->gflops == 123456.0);
    // A record from before the engine judged contention keeps its meaning: a share below the
    // threshold reads as contended.
    nlohmann::json old = toJson(record);
    old.erase("contended");
    old["cpu_share"] = 0.5;
    auto legacy = calibrationFromJson(old, "old");
    QVERIFY(legacy && contended(*legacy));
    if (saved.isNull()) qunsetenv("XDG_CONFIG_HOME");
    else qputenv("XDG_CONFIG_HOME", saved);
  }

  void roofline_data() {
    QTest::addColumn<double>("flops");
    QTest::addColumn<double>("bytes");
    QTest::addColumn<int>("unit");
    QTest::addColumn<double>("expectMs");
    QTest::addColumn<QString>("bound");
    // Toy device: cube 1e12, vector 1e11 FLOP/s (float16), 1e11 B/s, 1 us per launch.
    QTest::newRow("cube compute-bound") << 1e9 << 1e6 << int(ComputeUnit::Cube) << 1.0 + 0.001 << "compute";
    QTest::newRow("cube memory-bound") << 1e9 << 1e9 << int(ComputeUnit::Cube) << 10.0 + 0.001 << "memory";
    QTest::newRow("vector compute-bound") << 1e9 << 1e6 << int(ComputeUnit::Vector) << 10.0 + 0.001 << "compute";
    QTest::newRow("tiny op") << 1e3 << 1e3 << int(ComputeUnit::Vector) << 0.00001 + 0.001 << "overhead";
    QTest::newRow("pure copy") << 0.0 << 2e8 << int(ComputeUnit::Memory) << 2.0 + 0.001 << "memory";
  }
  void roofline() {
    QFETCH(double, flops);
    QFETCH(double, bytes);
    QFETCH(int, unit);
    QFETCH(double, expectMs);
    QFETCH(QString, bound);
    const NodeEstimate e = estimateNode(work(flops, bytes / 2, bytes / 2, ComputeUnit(unit)), "Op", toy());
    QVERIFY(qAbs(e.seconds * 1e3 - expectMs) < 1e-9);
    QCOMPARE(QString::fromStdString(std::string(boundName(e.bound))), bound);
    QCOMPARE(e.intensity, bytes > 0 ? flops / bytes : 0.0);
  }

  void rooflineMetadataAndPrecision() {
    const DeviceProfile d = toy();
    OpCost reshape;
    reshape.known = true;
    reshape.movesData = false;
    NodeEstimate e = estimateNode(reshape, "Reshape", d);
    QVERIFY(e.elided);
    QCOMPARE(e.seconds, 0.0);  // the compiler removes it
    auto cpu = loadDevice("cpu-host");
    QVERIFY(cpu.ok());
    e = estimateNode(reshape, "Reshape", *cpu);
    QVERIFY(!e.elided);
    QCOMPARE(e.seconds, cpu->launchOverhead.value);  // ONNX Runtime still dispatches it
    QCOMPARE(e.bound, Bound::Overhead);

    // 1e8 float32 bytes: computed in float16 they are half as many.
    OpCost f32 = work(1e6, 5e7, 5e7, ComputeUnit::Vector, DType::Float);
    f32.float32Bytes = 1e8;
    e = estimateNode(f32, "Add", d);
    QCOMPARE(e.computeType, DType::Float16);
    QCOMPARE(e.bytes, 5e7);
    RooflineOptions keep;
    keep.precision = RooflineOptions::Precision::Model;
    e = estimateNode(f32, "Add", d, keep);
    QCOMPARE(e.computeType, DType::Float);
    QCOMPARE(e.bytes, 1e8);
    QCOMPARE(e.computeSeconds, 1e6 / 0.05e12);  // the float32 vector peak

    // Shape arithmetic and constant weight transposes: folded by the compiler.
    OpCost folded = work(24, 96, 96, ComputeUnit::Memory);
    folded.foldable = true;
    e = estimateNode(folded, "Transpose", d);
    QVERIFY(e.elided);
    QCOMPARE(e.seconds, 0.0);

    OpCost unknown;
    unknown.reason = "no cost formula";
    e = estimateNode(unknown, "Mystery", d);
    QCOMPARE(e.bound, Bound::Unknown);
    QCOMPARE(e.seconds, d.launchOverhead.value);
  }
};

QTEST_APPLESS_MAIN(TestDevice)
#include "tst_device.moc"
