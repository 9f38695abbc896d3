<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>FileColumns</name>
    <message>
        <source>ONNX model</source>
        <translation>ONNX 模型</translation>
    </message>
    <message>
        <source>%1 file</source>
        <translation>%1 文件</translation>
    </message>
</context>
<context>
    <name>QAbstractFileIconProvider</name>
    <message>
        <source>Folder</source>
        <comment>All other platforms</comment>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Shortcut</source>
        <comment>All other platforms</comment>
        <translation>快捷方式</translation>
    </message>
    <message>
        <source>Drive</source>
        <translation>驱动器</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>未知</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>Refusing to write over the opened model %1: choose another file name.</source>
        <translation>拒绝覆盖已打开的模型 %1：请选择其他文件名。</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Cannot write %1: it is a folder.</source>
        <translation>无法写入 %1：这是一个文件夹。</translation>
    </message>
    <message>
        <source>Cannot export %1: %2</source>
        <translation>无法导出 %1：%2</translation>
    </message>
    <message>
        <source>Cannot export %1: the report is written as .html, .json or .md.</source>
        <translation>无法导出 %1：报告只能导出为 .html、.json 或 .md。</translation>
    </message>
    <message>
        <source>Cannot export %1: no graph is shown.</source>
        <translation>无法导出 %1：当前未显示计算图。</translation>
    </message>
    <message>
        <source>Cannot export %1: not enough memory for a %2 × %3 image.</source>
        <translation>无法导出 %1：内存不足，无法生成 %2 × %3 的图像。</translation>
    </message>
    <message>
        <source>Cannot export %1: PNG encoding failed.</source>
        <translation>无法导出 %1：PNG 编码失败。</translation>
    </message>
    <message>
        <source>Cannot export %1: the graph is written as .svg or .png.</source>
        <translation>无法导出 %1：计算图只能导出为 .svg 或 .png。</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b style=&apos;color:#b91c1c&apos;&gt;Verification failed:&lt;/b&gt; %1&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b style=&apos;color:#b91c1c&apos;&gt;验证失败：&lt;/b&gt;%1&lt;/p&gt;</translation>
    </message>
    <message>
        <source>output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>runtime</source>
        <translation>运行时</translation>
    </message>
    <message>
        <source>max abs</source>
        <translation>最大绝对误差</translation>
    </message>
    <message>
        <source>max rel</source>
        <translation>最大相对误差</translation>
    </message>
    <message>
        <source>&lt;p&gt;ONNX checker: %1&lt;/p&gt;</source>
        <translation>&lt;p&gt;ONNX 检查器：%1&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Not checked: %1&lt;/p&gt;</source>
        <translation>&lt;p&gt;未检查：%1&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Latency not measured: %1&lt;/p&gt;</source>
        <translation>&lt;p&gt;未测量延迟：%1&lt;/p&gt;</translation>
    </message>
    <message>
        <source>%1 × the output&apos;s scale</source>
        <translation>%1 × 输出的量级</translation>
    </message>
    <message>
        <source>&lt;p&gt;Tolerance: atol %1, rtol %2 (an element fails where both are exceeded).&lt;/p&gt;</source>
        <translation>&lt;p&gt;容差：atol %1，rtol %2（仅当两者都超出时该元素判为不一致）。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>beyond tolerance</source>
        <translation>超出容差</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>estimated on %1</source>
        <translation>在 %1 上估算</translation>
    </message>
    <message>
        <source>estimated on %1, each graph as ATC compiles it</source>
        <translation>在 %1 上估算，两个图均按 ATC 编译后的结果计</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b style=&apos;color:#b45309&apos;&gt;Not verified:&lt;/b&gt; %1&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b style=&apos;color:#b45309&apos;&gt;未能验证：&lt;/b&gt;%1&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Relative to the outputs&apos; magnitude: largest difference %1 of the largest reference value, cosine similarity %2%3.&lt;/p&gt;</source>
        <translation>&lt;p&gt;相对于输出的量级：最大差异为参考输出最大值的 %1，余弦相似度 %2%3。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Refusing to write over a file the document reads (%1): choose another file name.</source>
        <translation>拒绝覆盖文档正在读取的文件（%1）：请另选文件名。</translation>
    </message>
    <message>
        <source>per kernel as the devices measured them</source>
        <translation>按设备实测的每个内核</translation>
    </message>
    <message>
        <source>, top-1 class agreement %1</source>
        <translation>，top-1 类别一致率 %1</translation>
    </message>
    <message numerus="yes">
        <source>&lt;p&gt;&lt;b style=&apos;color:#15803d&apos;&gt;Outputs match within tolerance&lt;/b&gt; (%n output(s)): every element is within atol %1 or rtol %2 of the original&apos;s; the closest came to %3 of its tolerance. Largest differences: %4 absolute, %5 relative (not on the same element).&lt;/p&gt;</source>
        <translation>
            <numerusform>&lt;p&gt;&lt;b style=&apos;color:#15803d&apos;&gt;输出在容差范围内一致&lt;/b&gt;（%n 个输出）：每个元素与原模型的差异都在 atol %1 或 rtol %2 之内；最接近容差的元素达到其容差的 %3。最大差异：绝对 %4，相对 %5（不在同一元素上）。&lt;/p&gt;</numerusform>
        </translation>
    </message>
    <message>
        <source>&lt;p&gt;Measured on this CPU (ONNX Runtime, median of %1 runs; %2):&lt;br&gt;&lt;b&gt;as deployed (runtime optimizer on): %3 → %4, speedup %5&lt;/b&gt;&lt;br&gt;runtime optimizer disabled: %6 → %7, speedup %8&lt;/p&gt;</source>
        <translation>&lt;p&gt;在本机 CPU 上实测（ONNX Runtime，%1 次运行的中位数；%2）：&lt;br&gt;&lt;b&gt;部署配置（开启运行时优化）：%3 → %4，加速 %5&lt;/b&gt;&lt;br&gt;关闭运行时优化：%6 → %7，加速 %8&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Advisor&apos;s estimate: speedup %1</source>
        <translation>&lt;p&gt;优化顾问估算：加速 %1</translation>
    </message>
    <message>
        <source> (measured %1, error %2)</source>
        <translation>（实测 %1，误差 %2）</translation>
    </message>
</context>
<context>
    <name>msa::ui::AnalysisController</name>
    <message>
        <source>Bind the symbolic input dims to profile: %1 (Analyze ▸ Run…, Symbolic dims).</source>
        <translation>性能采集前请为符号输入维度赋值：%1（分析 ▸ 运行…，符号维度）。</translation>
    </message>
    <message>
        <source>The analysis failed: %1</source>
        <translation>分析失败：%1</translation>
    </message>
    <message>
        <source>Analysing…</source>
        <translation>正在分析…</translation>
    </message>
</context>
<context>
    <name>msa::ui::AnalyzeDialog</name>
    <message>
        <source>Analyze</source>
        <translation>分析</translation>
    </message>
    <message>
        <source>CPU — measured here with ONNX Runtime</source>
        <translation>CPU —— 在本机使用 ONNX Runtime 实测</translation>
    </message>
    <message>
        <source>Ascend NPU — measured with ACL</source>
        <translation>昇腾 NPU —— 使用 ACL 实测</translation>
    </message>
    <message>
        <source>Estimate for a device profile (no measurement)</source>
        <translation>按设备配置估算（不实测）</translation>
    </message>
    <message>
        <source>Ascend NPU — unavailable (no CANN in this build)</source>
        <translation>昇腾 NPU —— 不可用（此版本未包含 CANN）</translation>
    </message>
    <message>
        <source>Latency (one request as fast as possible)</source>
        <translation>延迟（单个请求尽可能快）</translation>
    </message>
    <message>
        <source>Throughput (requests per second)</source>
        <translation>吞吐量（每秒请求数）</translation>
    </message>
    <message>
        <source>Edge (small batches, launch overhead matters)</source>
        <translation>端侧（小批量，下发开销影响大）</translation>
    </message>
    <message>
        <source>Datacenter (large batches, compute and memory matter)</source>
        <translation>数据中心（大批量，算力与访存影响大）</translation>
    </message>
    <message>
        <source>Symbolic dim</source>
        <translation>符号维度</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>The model&apos;s inputs have fixed shapes.</source>
        <translation>模型输入均为固定形状。</translation>
    </message>
    <message>
        <source>Profiling needs a value for every symbolic input dim.</source>
        <translation>性能采集需要为每个符号输入维度赋值。</translation>
    </message>
    <message>
        <source>Timed runs per profile; the median is reported</source>
        <translation>每次性能采集的计时运行次数；报告取中位数</translation>
    </message>
    <message>
        <source>all cores (%1)</source>
        <translation>全部核心（%1）</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Run on:</source>
        <translation>运行于：</translation>
    </message>
    <message>
        <source>Device profile:</source>
        <translation>设备配置：</translation>
    </message>
    <message>
        <source>Ranking</source>
        <translation>排序</translation>
    </message>
    <message>
        <source>Goal:</source>
        <translation>目标：</translation>
    </message>
    <message>
        <source>Scenario:</source>
        <translation>场景：</translation>
    </message>
    <message>
        <source>Measurement</source>
        <translation>测量</translation>
    </message>
    <message>
        <source>Iterations:</source>
        <translation>迭代次数：</translation>
    </message>
    <message>
        <source>Threads:</source>
        <translation>线程数：</translation>
    </message>
    <message>
        <source>Input shapes:</source>
        <translation>输入形状：</translation>
    </message>
    <message>
        <source>Ascend: %1</source>
        <translation>昇腾：%1</translation>
    </message>
    <message>
        <source>Profiles twice in a separate process (runtime optimizations off, then on) and analyses against this host&apos;s calibrated roofline.</source>
        <translation>在独立进程中采集两次性能数据（先关闭、再开启运行时优化），并以本机校准后的 Roofline 为基准进行分析。</translation>
    </message>
    <message>
        <source>Compiles with ATC and profiles on the NPU; the profile gives the roofs.</source>
        <translation>使用 ATC 编译并在 NPU 上采集性能数据；设备配置给出性能上限。</translation>
    </message>
    <message>
        <source>No measurement: every operator at its roofline on the chosen device profile.</source>
        <translation>不实测：按所选设备配置，假设每个算子都达到其 Roofline。</translation>
    </message>
    <message>
        <source>Analysis Settings</source>
        <translation>分析设置</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Value or file</source>
        <translation>数值或文件</translation>
    </message>
    <message>
        <source>Empty: seeded random values shaped by how the model uses them.</source>
        <translation>留空：按模型对输入的用法生成的固定种子随机值。</translation>
    </message>
    <message>
        <source>Input values:</source>
        <translation>输入值：</translation>
    </message>
    <message>
        <source>random</source>
        <translation>随机</translation>
    </message>
    <message>
        <source>A number that fills the input, or the path of a .npy or .pb file</source>
        <translation>填满该输入的数值，或 .npy / .pb 文件的路径</translation>
    </message>
    <message>
        <source>Choose a .npy or .pb file for this input</source>
        <translation>为该输入选择 .npy 或 .pb 文件</translation>
    </message>
    <message>
        <source>Input Values</source>
        <translation>输入值</translation>
    </message>
    <message>
        <source>Tensors (*.npy *.pb)</source>
        <translation>张量 (*.npy *.pb)</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>A profiling run that takes longer is stopped; the application stays usable</source>
        <translation>超过此时长的性能采集运行会被停止；应用程序仍可继续使用</translation>
    </message>
    <message>
        <source>Timeout:</source>
        <translation>超时：</translation>
    </message>
</context>
<context>
    <name>msa::ui::ChartsPanel</name>
    <message>
        <source>Op types</source>
        <translation>算子类型</translation>
    </message>
    <message>
        <source>Roofline</source>
        <translation>Roofline</translation>
    </message>
    <message>
        <source>Before / after</source>
        <translation>优化前后</translation>
    </message>
    <message>
        <source>Where the time goes, by operator type</source>
        <translation>按算子类型统计的耗时分布</translation>
    </message>
    <message>
        <source>Each operator against the device&apos;s compute and memory roofs; click a point to select its node</source>
        <translation>各算子相对于设备算力与内存带宽上限（Roofline）的位置；单击某点即选中对应节点</translation>
    </message>
    <message>
        <source>Original latency, after the safe fixes, the theoretical optimum and the verified result</source>
        <translation>原始延迟、应用安全修复后的延迟、理论最优值以及验证结果</translation>
    </message>
</context>
<context>
    <name>msa::ui::CompareDeltaModel</name>
    <message>
        <source>removed</source>
        <translation>已删除</translation>
    </message>
    <message>
        <source>added</source>
        <translation>新增</translation>
    </message>
    <message>
        <source>slower</source>
        <translation>变慢</translation>
    </message>
    <message>
        <source>faster</source>
        <translation>变快</translation>
    </message>
    <message>
        <source>within noise</source>
        <translation>在噪声范围内</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>A (ms)</source>
        <translation>A (ms)</translation>
    </message>
    <message>
        <source>B (ms)</source>
        <translation>B (ms)</translation>
    </message>
    <message>
        <source>Change (ms)</source>
        <translation>变化 (ms)</translation>
    </message>
    <message>
        <source>B / A</source>
        <translation>B / A</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>结论</translation>
    </message>
</context>
<context>
    <name>msa::ui::CompareNodesModel</name>
    <message>
        <source>added in B</source>
        <translation>B 中新增</translation>
    </message>
    <message>
        <source>removed in B</source>
        <translation>B 中删除</translation>
    </message>
    <message>
        <source>changed (op, inputs or attributes)</source>
        <translation>已改变（算子、输入或属性）</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>变化</translation>
    </message>
</context>
<context>
    <name>msa::ui::ComparePanel</name>
    <message>
        <source>Largest changes</source>
        <translation>变化最大</translation>
    </message>
    <message>
        <source>Nodes added, removed, changed</source>
        <translation>新增、删除、改变的节点</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Write the comparison as JSON, the same document as msadvisor-cli compare --json</source>
        <translation>将对比写为 JSON，与 msadvisor-cli compare --json 的文档相同</translation>
    </message>
    <message>
        <source>A: %1 · B: %2</source>
        <translation>A：%1 · B：%2</translation>
    </message>
    <message>
        <source>%1 → %2 nodes: %3 added, %4 removed, %5 changed</source>
        <translation>%1 → %2 个节点：新增 %3，删除 %4，改变 %5</translation>
    </message>
    <message>
        <source>There is no comparison to export.</source>
        <translation>没有可导出的对比。</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Export Comparison</source>
        <translation>导出对比</translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <source>Step and ranks</source>
        <translation>迭代与各卡</translation>
    </message>
    <message>
        <source>Kernel types</source>
        <translation>内核类型</translation>
    </message>
    <message>
        <source>File ▸ Compare With… puts a second model, a saved analysis, or another run the device wrote (a profiler folder or trace) beside this one.</source>
        <translation>文件 ▸ 对比… 可将第二个模型、已保存的分析或设备写出的另一次运行（性能数据目录或轨迹）与当前内容并排对比。</translation>
    </message>
    <message>
        <source>A: %1 · %2</source>
        <translation>A：%1 · %2</translation>
    </message>
    <message>
        <source>B: %1 · %2</source>
        <translation>B：%1 · %2</translation>
    </message>
    <message>
        <source>Kernels slower: %1, faster: %2 (beyond %3)</source>
        <translation>变慢的内核：%1，变快的：%2（超过 %3）</translation>
    </message>
    <message numerus="yes">
        <source>%n node(s) slower, %1 faster (beyond %2)</source>
        <translation>
            <numerusform>%n 个节点变慢，%1 个变快（超过 %2）</numerusform>
        </translation>
    </message>
    <message>
        <source>total %1 → %2 (B/A %3), %4</source>
        <translation>总计 %1 → %2（B/A %3），%4</translation>
    </message>
    <message>
        <source>step %1 → %2 (B/A %3)</source>
        <translation>迭代 %1 → %2（B/A %3）</translation>
    </message>
</context>
<context>
    <name>msa::ui::Docks</name>
    <message>
        <source>Overview</source>
        <translation>概览</translation>
    </message>
    <message>
        <source>Properties</source>
        <translation>属性</translation>
    </message>
    <message>
        <source>Bottlenecks</source>
        <translation>瓶颈</translation>
    </message>
    <message>
        <source>The ranked list of what to fix appears here after Analyze.</source>
        <translation>运行分析后，此处按优先级列出待优化项。</translation>
    </message>
    <message>
        <source>Charts</source>
        <translation>图表</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>What If</source>
        <translation>假设分析</translation>
    </message>
</context>
<context>
    <name>msa::ui::EditController</name>
    <message>
        <source>Applying fixes…</source>
        <translation>正在应用修复…</translation>
    </message>
    <message numerus="yes">
        <source>Applied %n fix(es)</source>
        <translation>
            <numerusform>已应用 %n 项修复</numerusform>
        </translation>
    </message>
    <message>
        <source>; re-analysis failed: %1</source>
        <translation>；重新分析失败：%1</translation>
    </message>
    <message>
        <source>Apply failed</source>
        <translation>应用失败</translation>
    </message>
    <message>
        <source>Cannot apply the fix</source>
        <translation>无法应用修复</translation>
    </message>
    <message>
        <source>Apply cancelled</source>
        <translation>应用已取消</translation>
    </message>
    <message>
        <source>Verification failed: %1</source>
        <translation>验证失败：%1</translation>
    </message>
    <message>
        <source>Verification</source>
        <translation>验证</translation>
    </message>
    <message>
        <source>Verification could not run</source>
        <translation>无法运行验证</translation>
    </message>
    <message>
        <source>Cannot verify</source>
        <translation>无法验证</translation>
    </message>
    <message>
        <source>Verification cancelled</source>
        <translation>验证已取消</translation>
    </message>
    <message>
        <source>&amp;Apply Fix</source>
        <translation>应用修复(&amp;A)</translation>
    </message>
    <message>
        <source>Apply All &amp;Safe Fixes</source>
        <translation>应用所有安全修复(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Verify</source>
        <translation>验证(&amp;V)</translation>
    </message>
    <message>
        <source>Compare the edited model&apos;s outputs with the original&apos;s and measure both</source>
        <translation>比较修改后模型与原模型的输出，并分别测量两者性能</translation>
    </message>
    <message>
        <source>Export Optimized &amp;ONNX…</source>
        <translation>导出优化后的 &amp;ONNX…</translation>
    </message>
    <message>
        <source>Export &amp;Report…</source>
        <translation>导出报告(&amp;R)…</translation>
    </message>
    <message>
        <source>Export &amp;Graph Image…</source>
        <translation>导出计算图图像(&amp;G)…</translation>
    </message>
    <message>
        <source>Apply: %1</source>
        <translation>应用：%1</translation>
    </message>
    <message>
        <source>Select a finding (or its nodes) that has an automatic fix</source>
        <translation>请选择具有自动修复的诊断项（或其节点）</translation>
    </message>
    <message numerus="yes">
        <source>Apply %n safe fix(es) as one undo step</source>
        <translation>
            <numerusform>将 %n 项安全修复作为一次可撤销的操作应用</numerusform>
        </translation>
    </message>
    <message>
        <source>The current analysis has no safe automatic fix</source>
        <translation>当前分析中没有安全的自动修复</translation>
    </message>
    <message>
        <source>Apply</source>
        <translation>应用</translation>
    </message>
    <message>
        <source>Select a finding (or its nodes) that has an automatic fix.</source>
        <translation>请选择具有自动修复的诊断项（或其节点）。</translation>
    </message>
    <message>
        <source>Verify</source>
        <translation>验证</translation>
    </message>
    <message>
        <source>Nothing to verify: no fix has been applied to the model.</source>
        <translation>无需验证：模型尚未应用任何修复。</translation>
    </message>
    <message>
        <source>Verifying against the original…</source>
        <translation>正在与原模型对比验证…</translation>
    </message>
    <message>
        <source>No model is open.</source>
        <translation>未打开模型。</translation>
    </message>
    <message>
        <source>Nothing to export: analyse the model first.</source>
        <translation>没有可导出的内容：请先分析模型。</translation>
    </message>
    <message>
        <source>Export optimized ONNX</source>
        <translation>导出优化后的 ONNX</translation>
    </message>
    <message>
        <source>ONNX models (*.onnx)</source>
        <translation>ONNX 模型 (*.onnx)</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <source>Exported %1</source>
        <translation>已导出 %1</translation>
    </message>
    <message>
        <source>Export report</source>
        <translation>导出报告</translation>
    </message>
    <message>
        <source>HTML report (*.html);;JSON report (*.json);;Markdown report (*.md)</source>
        <translation>HTML 报告 (*.html);;JSON 报告 (*.json);;Markdown 报告 (*.md)</translation>
    </message>
    <message>
        <source>Export graph image</source>
        <translation>导出计算图图像</translation>
    </message>
    <message>
        <source>SVG image (*.svg);;PNG image (*.png)</source>
        <translation>SVG 图像 (*.svg);;PNG 图像 (*.png)</translation>
    </message>
    <message numerus="yes">
        <source>; %n safe finding(s) left, not applicable to the result (select one: Apply&apos;s tooltip says why)</source>
        <translation>
            <numerusform>；剩余 %n 项安全诊断无法应用于结果（选中后，“应用修复”的提示会说明原因）</numerusform>
        </translation>
    </message>
    <message>
        <source>Verified: outputs match within tolerance</source>
        <translation>验证通过：输出在容差范围内一致</translation>
    </message>
    <message>
        <source>Cannot apply “%1”: %2</source>
        <translation>无法应用“%1”：%2</translation>
    </message>
    <message>
        <source>Unsaved fixes</source>
        <translation>未保存的修复</translation>
    </message>
    <message numerus="yes">
        <source>%n fix(es) applied to %1 have not been exported. Export the optimized model first?</source>
        <translation>
            <numerusform>对 %1 应用的 %n 项修复尚未导出。是否先导出优化后的模型？</numerusform>
        </translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Discard</source>
        <translation>放弃</translation>
    </message>
    <message>
        <source>Verification failed</source>
        <translation>验证失败</translation>
    </message>
    <message>
        <source>The edited model&apos;s outputs differ from the original&apos;s:&lt;br&gt;%1&lt;br&gt;&lt;br&gt;Export it anyway?</source>
        <translation>修改后模型的输出与原模型不一致：&lt;br&gt;%1&lt;br&gt;&lt;br&gt;仍要导出吗？</translation>
    </message>
    <message>
        <source>Export Anyway</source>
        <translation>仍然导出</translation>
    </message>
    <message>
        <source>Undo the Last Fix</source>
        <translation>撤销上一次修复</translation>
    </message>
    <message>
        <source>Not exported: the last verification failed.</source>
        <translation>未导出：上一次验证失败。</translation>
    </message>
    <message>
        <source>This fix writes %1: only ONNX Runtime runs the fixed model.</source>
        <translation>此修复会写入 %1：修复后的模型只能由 ONNX Runtime 运行。</translation>
    </message>
    <message>
        <source>Not verified: %1</source>
        <translation>未能验证：%1</translation>
    </message>
    <message>
        <source>Verified: outputs match within tolerance; measured speedup %1 as deployed</source>
        <translation>验证通过：输出在容差范围内一致；部署配置下实测加速 %1</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Undo %1</source>
        <translation>撤销 %1</translation>
    </message>
    <message>
        <source>Redo</source>
        <translation>重做</translation>
    </message>
    <message>
        <source>Redo %1</source>
        <translation>重做 %1</translation>
    </message>
</context>
<context>
    <name>msa::ui::EditSession</name>
    <message>
        <source>The finding %1 has no automatic fix in the current analysis.</source>
        <translation>当前分析中诊断项 %1 没有自动修复。</translation>
    </message>
    <message>
        <source>The current analysis has no safe automatic fix.</source>
        <translation>当前分析中没有安全的自动修复。</translation>
    </message>
    <message numerus="yes">
        <source>Apply %n Safe Fix(es)</source>
        <translation>
            <numerusform>应用 %n 项安全修复</numerusform>
        </translation>
    </message>
    <message>
        <source>it is not in the current analysis</source>
        <translation>它不在当前分析结果中</translation>
    </message>
    <message>
        <source>it is advice only: no automatic rewrite fixes it</source>
        <translation>它仅为建议：没有可自动修复它的改写</translation>
    </message>
    <message>
        <source>its rewrite is not legal here</source>
        <translation>在此处进行改写不合法</translation>
    </message>
    <message>
        <source>its rewrite is not legal here: %1</source>
        <translation>在此处进行改写不合法：%1</translation>
    </message>
    <message>
        <source>it did not apply to this model: %1</source>
        <translation>它无法应用于此模型：%1</translation>
    </message>
    <message>
        <source>its fix writes %1, which only ONNX Runtime runs, and this analysis targets %2</source>
        <translation>其修复会写入只有 ONNX Runtime 能运行的 %1，而本次分析的目标是 %2</translation>
    </message>
</context>
<context>
    <name>msa::ui::FindBar</name>
    <message>
        <source>Find:</source>
        <translation>查找：</translation>
    </message>
    <message>
        <source>node name or op type (e.g. MatMul)</source>
        <translation>节点名称或算子类型（如 MatMul）</translation>
    </message>
    <message>
        <source>Previous match (Shift+Enter)</source>
        <translation>上一个匹配项（Shift+Enter）</translation>
    </message>
    <message>
        <source>Next match (Enter)</source>
        <translation>下一个匹配项（Enter）</translation>
    </message>
    <message>
        <source>Close (Esc)</source>
        <translation>关闭（Esc）</translation>
    </message>
    <message>
        <source>no match</source>
        <translation>无匹配项</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>第 %1 个，共 %2 个</translation>
    </message>
</context>
<context>
    <name>msa::ui::FindingsModel</name>
    <message>
        <source>%1 +%2</source>
        <translation>%1 +%2</translation>
    </message>
    <message>
        <source>%1 (runtime)</source>
        <translation>%1（运行时）</translation>
    </message>
    <message>
        <source>blocked</source>
        <translation>受阻</translation>
    </message>
    <message>
        <source>advice</source>
        <translation>建议</translation>
    </message>
    <message>
        <source>auto · safe</source>
        <translation>自动 · 安全</translation>
    </message>
    <message>
        <source>done at load</source>
        <translation>加载时已完成</translation>
    </message>
    <message>
        <source>auto</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>Time saved when fixed (after overlap accounting: no node&apos;s time is counted twice)</source>
        <translation>修复后节省的时间（已做重叠核算：每个节点的耗时不会被重复计算）</translation>
    </message>
    <message>
        <source>Speedup of the affected part alone</source>
        <translation>仅受影响部分的加速比</translation>
    </message>
    <message>
        <source>Share of the whole run the fix saves</source>
        <translation>修复可节省的整体运行时间占比</translation>
    </message>
    <message>
        <source>auto: an optimizer pass fixes it; safe: applied by Apply All Safe; advice: needs a human</source>
        <translation>自动：由优化 Pass 修复；安全：由“应用所有安全修复”应用；建议：需要人工处理</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Priority</source>
        <translation>优先级</translation>
    </message>
    <message>
        <source>Category</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Finding</source>
        <translation>诊断项</translation>
    </message>
    <message>
        <source>Location</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>Impact</source>
        <translation>影响</translation>
    </message>
    <message>
        <source>Local</source>
        <translation>局部</translation>
    </message>
    <message>
        <source>Global</source>
        <translation>全局</translation>
    </message>
    <message>
        <source>Fix</source>
        <translation>修复</translation>
    </message>
    <message numerus="yes">
        <source>%1 · %n more alike</source>
        <translation>
            <numerusform>%1（另 %n 处相同）</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>msa::ui::FindingsPanel</name>
    <message>
        <source>Nothing to report here for this model on this device.</source>
        <translation>该模型在此设备上没有此类问题。</translation>
    </message>
    <message numerus="yes">
        <source>No bottleneck left to fix: the runtime already applies %n of the findings when it loads the model, and the others have no measurable share of the run. The category tables list every finding.</source>
        <translation>
            <numerusform>没有待修复的瓶颈：运行时在加载模型时已自动应用其中 %n 项建议，其余建议在运行时间中没有可测量的占比。各分类表列出了全部建议。</numerusform>
        </translation>
    </message>
    <message>
        <source>No bottleneck left to fix: no finding has a measurable share of the run. The category tables list every finding.</source>
        <translation>没有待修复的瓶颈：没有任何建议在运行时间中有可测量的占比。各分类表列出了全部建议。</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message numerus="yes">
        <source>Nothing of this kind in this analysis. Its %n finding(s) are under: %1.</source>
        <translation>
            <numerusform>此类发现本次分析中没有。全部 %n 条发现位于：%1。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n finding(s) · %1 to gain (%2 of the run)</source>
        <translation>
            <numerusform>%n 个诊断项 · 可节省 %1（占运行时间的 %2）</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>msa::ui::GraphScene</name>
    <message numerus="yes">
        <source>%n groups</source>
        <translation>
            <numerusform>%n 个分组</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n node(s)</source>
        <translation>
            <numerusform>%n 个节点</numerusform>
        </translation>
    </message>
    <message>
        <source>double-click to expand</source>
        <translation>双击展开</translation>
    </message>
</context>
<context>
    <name>msa::ui::GraphWidget</name>
    <message>
        <source>Open an ONNX model (Ctrl+O) or drop one here</source>
        <translation>打开 ONNX 模型（Ctrl+O），或将模型文件拖放到此处</translation>
    </message>
    <message>
        <source>The graph could not be laid out.</source>
        <translation>无法完成计算图布局。</translation>
    </message>
    <message>
        <source>Layout cancelled. View ▸ Collapse All Blocks draws a smaller graph.</source>
        <translation>布局已取消。使用“视图 ▸ 折叠所有模块”可绘制更小的图。</translation>
    </message>
    <message>
        <source>Laying out %1 nodes…</source>
        <translation>正在布局 %1 个节点…</translation>
    </message>
    <message numerus="yes">
        <source>no value: %n node(s) whose shapes depend on %1 (Analyze ▸ Run… binds them)</source>
        <translation>
            <numerusform>无数值：%n 个节点的形状取决于 %1（在 分析 ▸ 运行… 中赋值）</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>msa::ui::HeatLegend</name>
    <message>
        <source>log scale</source>
        <translation>对数刻度</translation>
    </message>
    <message>
        <source>linear scale</source>
        <translation>线性刻度</translation>
    </message>
    <message>
        <source>no value</source>
        <translation>无数值</translation>
    </message>
    <message>
        <source>green faster, red slower</source>
        <translation>绿色变快，红色变慢</translation>
    </message>
</context>
<context>
    <name>msa::ui::HeatmapChooser</name>
    <message>
        <source>Colour nodes by a metric</source>
        <translation>按指标为节点着色</translation>
    </message>
    <message>
        <source>linear</source>
        <translation>线性</translation>
    </message>
    <message>
        <source>log</source>
        <translation>对数</translation>
    </message>
    <message>
        <source>Heatmap scale</source>
        <translation>热力图刻度</translation>
    </message>
    <message>
        <source>&amp;Heatmap</source>
        <translation>热力图(&amp;H)</translation>
    </message>
    <message>
        <source>Heatmap S&amp;cale</source>
        <translation>热力图刻度(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Linear Scale</source>
        <translation>线性刻度(&amp;L)</translation>
    </message>
    <message>
        <source>Lo&amp;g Scale</source>
        <translation>对数刻度(&amp;G)</translation>
    </message>
    <message>
        <source>None (op category)</source>
        <translation>无（按算子类别着色）</translation>
    </message>
</context>
<context>
    <name>msa::ui::Language</name>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>System Default</source>
        <translation>跟随系统</translation>
    </message>
</context>
<context>
    <name>msa::ui::LatencyChart</name>
    <message>
        <source>Latency before and after: run Analyze</source>
        <translation>优化前后延迟：请先运行分析</translation>
    </message>
    <message>
        <source>Original (measured)</source>
        <translation>原始（实测）</translation>
    </message>
    <message>
        <source>Original (estimated)</source>
        <translation>原始（估算）</translation>
    </message>
    <message>
        <source>After safe fixes (estimated)</source>
        <translation>安全修复后（估算）</translation>
    </message>
    <message>
        <source>Theoretical optimum</source>
        <translation>理论最优</translation>
    </message>
    <message>
        <source>Optimized (measured)</source>
        <translation>优化后（实测）</translation>
    </message>
    <message>
        <source>milliseconds</source>
        <translation>毫秒</translation>
    </message>
    <message>
        <source>Latency on %1</source>
        <translation>%1 上的延迟</translation>
    </message>
    <message>
        <source>Original</source>
        <translation>原始</translation>
    </message>
    <message>
        <source>Safe fixes</source>
        <translation>安全修复后</translation>
    </message>
    <message>
        <source>Optimum</source>
        <translation>理论最优</translation>
    </message>
    <message>
        <source>Verified</source>
        <translation>验证实测</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>measured speedup %1</source>
        <translation>实测加速 %1</translation>
    </message>
    <message>
        <source>safe fixes %1 (estimated)</source>
        <translation>安全修复加速 %1（估算）</translation>
    </message>
</context>
<context>
    <name>msa::ui::MainWindow</name>
    <message>
        <source>Laying out %1 boxes…</source>
        <translation>正在布局 %1 个框…</translation>
    </message>
    <message>
        <source>layout from cache</source>
        <translation>布局来自缓存</translation>
    </message>
    <message>
        <source>Layout failed</source>
        <translation>布局失败</translation>
    </message>
    <message>
        <source>Layout cancelled</source>
        <translation>布局已取消</translation>
    </message>
    <message>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <source>Open an ONNX model</source>
        <translation>打开 ONNX 模型</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Find…</source>
        <translation>查找(&amp;F)…</translation>
    </message>
    <message>
        <source>Find a node by name or op type (Ctrl+F)</source>
        <translation>按名称或算子类型查找节点（Ctrl+F）</translation>
    </message>
    <message>
        <source>Zoom &amp;In</source>
        <translation>放大(&amp;I)</translation>
    </message>
    <message>
        <source>Zoom &amp;Out</source>
        <translation>缩小(&amp;O)</translation>
    </message>
    <message>
        <source>&amp;Fit to Window</source>
        <translation>适应窗口(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Actual Size</source>
        <translation>实际大小(&amp;A)</translation>
    </message>
    <message>
        <source>Show &amp;Shapes</source>
        <translation>显示形状(&amp;S)</translation>
    </message>
    <message>
        <source>Show tensor shapes on edges</source>
        <translation>在边上显示张量形状</translation>
    </message>
    <message>
        <source>&amp;Expand Block</source>
        <translation>展开模块(&amp;E)</translation>
    </message>
    <message>
        <source>Open the selected collapsed block (or double-click it)</source>
        <translation>展开选中的已折叠模块（或双击该模块）</translation>
    </message>
    <message>
        <source>&amp;Collapse Block</source>
        <translation>折叠模块(&amp;C)</translation>
    </message>
    <message>
        <source>Collapse the block around the selection (or double-click its title)</source>
        <translation>折叠选中内容所在的模块（或双击模块标题）</translation>
    </message>
    <message>
        <source>E&amp;xpand All Blocks</source>
        <translation>展开所有模块(&amp;X)</translation>
    </message>
    <message>
        <source>Expand all blocks</source>
        <translation>展开所有模块</translation>
    </message>
    <message>
        <source>Drawing all %1 nodes at once takes Graphviz a while (you can cancel it). Continue?</source>
        <translation>一次绘制全部 %1 个节点需要 Graphviz 花费一些时间（可以取消）。是否继续？</translation>
    </message>
    <message>
        <source>Co&amp;llapse All Blocks</source>
        <translation>折叠所有模块(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Default Blocks</source>
        <translation>默认模块状态(&amp;D)</translation>
    </message>
    <message>
        <source>Collapse as when the model was opened</source>
        <translation>恢复为打开模型时的折叠状态</translation>
    </message>
    <message>
        <source>&amp;About msadvisor</source>
        <translation>关于 msadvisor(&amp;A)</translation>
    </message>
    <message>
        <source>About msadvisor</source>
        <translation>关于 msadvisor</translation>
    </message>
    <message>
        <source>&lt;h3&gt;msadvisor %1&lt;/h3&gt;&lt;p&gt;Model optimization advisor for ONNX models on Ascend NPUs and CPUs.&lt;/p&gt;&lt;p&gt;Qt %2 · Graphviz %3&lt;/p&gt;</source>
        <translation>&lt;h3&gt;msadvisor %1&lt;/h3&gt;&lt;p&gt;面向昇腾 NPU 与 CPU 的 ONNX 模型优化顾问。&lt;/p&gt;&lt;p&gt;Qt %2 · Graphviz %3&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Panels</source>
        <translation>面板(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <source> Heatmap: </source>
        <translation> 热力图： </translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>%1  ·  %2 nodes  ·  %3 boxes drawn  ·  %4 parameters  ·  opset %5</source>
        <translation>%1  ·  %2 个节点  ·  已绘制 %3 个框  ·  %4 参数  ·  算子集版本 %5</translation>
    </message>
    <message>
        <source>Loading cancelled</source>
        <translation>加载已取消</translation>
    </message>
    <message>
        <source>Open model</source>
        <translation>打开模型</translation>
    </message>
    <message>
        <source>ONNX models (*.onnx);;All files (*)</source>
        <translation>ONNX 模型 (*.onnx);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Loading %1…</source>
        <translation>正在加载 %1…</translation>
    </message>
    <message>
        <source>Could not open %1</source>
        <translation>无法打开 %1</translation>
    </message>
    <message>
        <source>Cannot open model</source>
        <translation>无法打开模型</translation>
    </message>
    <message>
        <source>Clear List</source>
        <translation>清除列表</translation>
    </message>
    <message numerus="yes">
        <source>Analysis done: latency %1 (%2), %n finding(s)</source>
        <translation>
            <numerusform>分析完成：延迟 %1（%2），%n 个诊断项</numerusform>
        </translation>
    </message>
    <message>
        <source>Analysis failed: %1</source>
        <translation>分析失败：%1</translation>
    </message>
    <message>
        <source>Analysis failed</source>
        <translation>分析失败</translation>
    </message>
    <message>
        <source>Analysis cancelled</source>
        <translation>分析已取消</translation>
    </message>
    <message>
        <source>&amp;Run…</source>
        <translation>运行(&amp;R)…</translation>
    </message>
    <message>
        <source>Analyze</source>
        <translation>分析</translation>
    </message>
    <message>
        <source>Profile and analyse the model: latency, bottlenecks, what to fix (Ctrl+R)</source>
        <translation>采集性能数据并分析模型：延迟、瓶颈及待优化项（Ctrl+R）</translation>
    </message>
    <message>
        <source>&amp;Analyze</source>
        <translation>分析(&amp;A)</translation>
    </message>
    <message>
        <source>Open a model first.</source>
        <translation>请先打开模型。</translation>
    </message>
    <message>
        <source>An analysis is already running.</source>
        <translation>已有分析正在运行。</translation>
    </message>
    <message>
        <source>The analysis could not start.</source>
        <translation>无法启动分析。</translation>
    </message>
    <message>
        <source>&amp;Import Profile…</source>
        <translation>导入性能数据(&amp;I)…</translation>
    </message>
    <message>
        <source>Import Profile</source>
        <translation>导入性能数据</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>设置(&amp;S)…</translation>
    </message>
    <message>
        <source>Open &amp;Profile…</source>
        <translation>打开性能数据(&amp;P)…</translation>
    </message>
    <message>
        <source>Analyse a profile from a device (msprof, torch_npu, ONNX Runtime, TensorRT…) without its model</source>
        <translation>不依赖模型，直接分析设备上采集的性能数据（msprof、torch_npu、ONNX Runtime、TensorRT…）</translation>
    </message>
    <message>
        <source>Analyse the open model with a profile taken elsewhere, instead of measuring here</source>
        <translation>使用在其他地方采集的性能数据分析当前模型，而不在本机测量</translation>
    </message>
    <message>
        <source>%1  ·  a profile analysed without its model</source>
        <translation>%1  ·  未提供模型，仅分析性能数据</translation>
    </message>
    <message>
        <source>Analysing…</source>
        <translation>正在分析…</translation>
    </message>
    <message>
        <source>&amp;Compare With…</source>
        <translation>对比(&amp;C)…</translation>
    </message>
    <message>
        <source>Put a second model, or a saved analysis or profile, beside this one: per-node changes on the graph</source>
        <translation>将第二个模型或已保存的分析、性能数据与当前模型并列：在图上显示逐节点变化</translation>
    </message>
    <message>
        <source>Compared: %1</source>
        <translation>已对比：%1</translation>
    </message>
    <message>
        <source>Comparison failed: %1</source>
        <translation>对比失败：%1</translation>
    </message>
    <message>
        <source>Compare With</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>Comparing with %1…</source>
        <translation>正在与 %1 对比…</translation>
    </message>
    <message>
        <source>%1 (profile) — msadvisor</source>
        <translation>%1（性能数据）— msadvisor</translation>
    </message>
    <message>
        <source>A profile analysed without its model: %1. Its findings are in the docks; File ▸ Open… shows a model&apos;s graph.</source>
        <translation>已在没有模型的情况下分析性能数据：%1。发现列在各停靠面板中；文件 ▸ 打开… 可显示模型的计算图。</translation>
    </message>
    <message>
        <source>Open Profile: a file of a run or a profiler folder</source>
        <translation>打开性能数据：一次运行的文件或性能采集目录</translation>
    </message>
    <message>
        <source>ONNX models and analyses (*.onnx *.json)</source>
        <translation>ONNX 模型与分析结果 (*.onnx *.json)</translation>
    </message>
    <message>
        <source>&amp;What If…</source>
        <translation>假设分析(&amp;W)…</translation>
    </message>
    <message>
        <source>Build int8, session-setting and bf16 variants, check their accuracy and measure them beside the original</source>
        <translation>构建 int8、会话设置和 bf16 变体，检查其精度，并与原模型并排实测</translation>
    </message>
    <message>
        <source>What If: %1</source>
        <translation>假设分析：%1</translation>
    </message>
    <message>
        <source>What If cancelled</source>
        <translation>假设分析已取消</translation>
    </message>
    <message>
        <source>Exported %1</source>
        <translation>已导出 %1</translation>
    </message>
    <message>
        <source>What If failed: %1</source>
        <translation>假设分析失败：%1</translation>
    </message>
    <message>
        <source>What If</source>
        <translation>假设分析</translation>
    </message>
    <message>
        <source>What If: building and measuring the variants…</source>
        <translation>假设分析：正在构建并实测各变体…</translation>
    </message>
    <message numerus="yes">
        <source>What If: %n variant(s)</source>
        <translation>
            <numerusform>假设分析：%n 个变体</numerusform>
        </translation>
    </message>
    <message>
        <source>layout %1</source>
        <translation>布局耗时 %1</translation>
    </message>
    <message>
        <source>layout adjusted to the edit</source>
        <translation>布局已按编辑调整</translation>
    </message>
</context>
<context>
    <name>msa::ui::Minimap</name>
    <message>
        <source>Overview: click or drag to move the view</source>
        <translation>缩略图：单击或拖动以移动视图</translation>
    </message>
</context>
<context>
    <name>msa::ui::NodeMetric</name>
    <message>
        <source>Estimated time</source>
        <translation>估算耗时</translation>
    </message>
    <message>
        <source>FLOPs</source>
        <translation>浮点运算量</translation>
    </message>
    <message>
        <source>Memory traffic</source>
        <translation>访存量</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数量</translation>
    </message>
    <message>
        <source>Measured time</source>
        <translation>实测耗时</translation>
    </message>
    <message>
        <source>Measured time share</source>
        <translation>实测耗时占比</translation>
    </message>
    <message>
        <source>Efficiency</source>
        <translation>效率</translation>
    </message>
    <message>
        <source>Estimated time share</source>
        <translation>估算耗时占比</translation>
    </message>
    <message>
        <source>roofline, %1</source>
        <translation>Roofline 估算，%1</translation>
    </message>
    <message>
        <source>cost model; a multiply-add counts 2</source>
        <translation>代价模型；一次乘加计为 2</translation>
    </message>
    <message>
        <source>cost model: bytes read + written</source>
        <translation>代价模型：读取 + 写入的字节数</translation>
    </message>
    <message>
        <source>weight elements each node reads</source>
        <translation>每个节点读取的权重元素数</translation>
    </message>
    <message>
        <source>share of the measured operator time, %1</source>
        <translation>占实测算子总耗时的比例，%1</translation>
    </message>
    <message>
        <source>median per run, %1</source>
        <translation>每次运行的中位数，%1</translation>
    </message>
    <message>
        <source>Deployed time</source>
        <translation>部署运行时间</translation>
    </message>
    <message>
        <source>Deployed time share</source>
        <translation>部署运行时间占比</translation>
    </message>
    <message>
        <source>share of the deployed run (the runtime&apos;s optimizer on), %1</source>
        <translation>占部署运行（运行时优化开启）的比例，%1</translation>
    </message>
    <message>
        <source>median per run, the runtime&apos;s optimizer on, %1</source>
        <translation>每次运行的中位数，运行时优化开启，%1</translation>
    </message>
    <message>
        <source>share of the operator time, the runtime&apos;s optimizer off, %1</source>
        <translation>占算子总耗时的比例，运行时优化关闭，%1</translation>
    </message>
    <message>
        <source>roofline time / measured time, %1</source>
        <translation>Roofline 时间 / 实测时间，%1</translation>
    </message>
    <message>
        <source>share of the roofline estimate, %1</source>
        <translation>占 Roofline 估算的比例，%1</translation>
    </message>
    <message>
        <source>B − A per node, %1</source>
        <translation>逐节点 B − A，%1</translation>
    </message>
    <message>
        <source>Time change</source>
        <translation>时间变化</translation>
    </message>
    <message>
        <source>Time saved by the variant</source>
        <translation>变体节省的时间</translation>
    </message>
    <message>
        <source>predicted per layer, %1</source>
        <translation>逐层预测，%1</translation>
    </message>
    <message>
        <source>Accuracy cost of quantizing</source>
        <translation>量化的精度代价</translation>
    </message>
    <message>
        <source>relative RMS error each int8 layer adds alone, %1</source>
        <translation>每个 int8 层单独引入的相对均方根误差，%1</translation>
    </message>
</context>
<context>
    <name>msa::ui::NodeProperties</name>
    <message>
        <source>Property</source>
        <translation>属性</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>%1 nodes selected</source>
        <translation>已选中 %1 个节点</translation>
    </message>
    <message>
        <source>total</source>
        <translation>合计</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>file</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>producer</source>
        <translation>生成工具</translation>
    </message>
    <message>
        <source>opsets</source>
        <translation>算子集版本</translation>
    </message>
    <message>
        <source>nodes</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>parameters</source>
        <translation>参数量</translation>
    </message>
    <message>
        <source>scope blocks</source>
        <translation>作用域模块</translation>
    </message>
    <message>
        <source>Inputs and outputs</source>
        <translation>输入与输出</translation>
    </message>
    <message>
        <source>in </source>
        <translation>输入 </translation>
    </message>
    <message>
        <source>out </source>
        <translation>输出 </translation>
    </message>
    <message>
        <source>Shape inference</source>
        <translation>形状推导</translation>
    </message>
    <message>
        <source>warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>Graph input</source>
        <translation>图输入</translation>
    </message>
    <message>
        <source>Graph output</source>
        <translation>图输出</translation>
    </message>
    <message>
        <source>name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>op type</source>
        <translation>算子类型</translation>
    </message>
    <message>
        <source>category</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>scope</source>
        <translation>作用域</translation>
    </message>
    <message>
        <source>(omitted)</source>
        <translation>（省略）</translation>
    </message>
    <message>
        <source>weight </source>
        <translation>权重 </translation>
    </message>
    <message>
        <source>constant </source>
        <translation>常量 </translation>
    </message>
    <message>
        <source>[unknown shape]</source>
        <translation>[形状未知]</translation>
    </message>
    <message>
        <source>Inputs</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>Outputs</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>Attributes</source>
        <translation>属性</translation>
    </message>
    <message>
        <source>Documentation</source>
        <translation>文档</translation>
    </message>
    <message>
        <source>doc</source>
        <translation>说明</translation>
    </message>
    <message>
        <source>compute-bound</source>
        <translation>计算受限</translation>
    </message>
    <message>
        <source>memory-bound</source>
        <translation>访存受限</translation>
    </message>
    <message>
        <source>launch-overhead-bound</source>
        <translation>下发开销受限</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Cost</source>
        <translation>计算量</translation>
    </message>
    <message>
        <source>cost</source>
        <translation>开销</translation>
    </message>
    <message>
        <source>unknown: %1</source>
        <translation>未知：%1</translation>
    </message>
    <message>
        <source>FLOPs</source>
        <translation>浮点运算量</translation>
    </message>
    <message>
        <source> FLOP (a multiply-add counts 2)</source>
        <translation> FLOP（一次乘加计为 2）</translation>
    </message>
    <message>
        <source>MACs</source>
        <translation>乘加次数</translation>
    </message>
    <message>
        <source>bytes read</source>
        <translation>读取字节数</translation>
    </message>
    <message>
        <source> bytes, weights included</source>
        <translation> 字节，含权重</translation>
    </message>
    <message>
        <source>bytes written</source>
        <translation>写入字节数</translation>
    </message>
    <message>
        <source> bytes</source>
        <translation> 字节</translation>
    </message>
    <message>
        <source>weight bytes</source>
        <translation>权重字节数</translation>
    </message>
    <message>
        <source>intensity</source>
        <translation>计算强度</translation>
    </message>
    <message>
        <source>%1 FLOP/byte</source>
        <translation>%1 FLOP/字节</translation>
    </message>
    <message>
        <source>roofline time</source>
        <translation>Roofline 时间</translation>
    </message>
    <message>
        <source>roofline estimate on %1, launch included</source>
        <translation>%1 上的 Roofline 估算，含下发开销</translation>
    </message>
    <message>
        <source>bound</source>
        <translation>瓶颈类型</translation>
    </message>
    <message>
        <source>elided by the compiler</source>
        <translation>被编译器消除</translation>
    </message>
    <message>
        <source>Measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>Analysis</source>
        <translation>分析</translation>
    </message>
    <message>
        <source>time</source>
        <translation>耗时</translation>
    </message>
    <message>
        <source>median per run; a fused entry&apos;s time is split over its nodes</source>
        <translation>每次运行的中位数；融合算子的耗时按其包含的节点分摊</translation>
    </message>
    <message>
        <source>median / p10 / p90</source>
        <translation>中位数 / p10 / p90</translation>
    </message>
    <message>
        <source>%1 runs of %2</source>
        <translation>%2 运行 %1 次</translation>
    </message>
    <message>
        <source>kernel</source>
        <translation>内核</translation>
    </message>
    <message>
        <source>runs with</source>
        <translation>同内核运行</translation>
    </message>
    <message numerus="yes">
        <source>%n nodes in one kernel</source>
        <translation>
            <numerusform>一个内核包含 %n 个节点</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>fused with %n other nodes</source>
        <translation>
            <numerusform>与另外 %n 个节点融合</numerusform>
        </translation>
    </message>
    <message>
        <source>optimized runtime</source>
        <translation>运行时优化后</translation>
    </message>
    <message>
        <source>share of time</source>
        <translation>耗时占比</translation>
    </message>
    <message>
        <source>not run (folded or removed by the runtime)</source>
        <translation>未运行（被运行时折叠或移除）</translation>
    </message>
    <message>
        <source>not profiled</source>
        <translation>未采集性能数据</translation>
    </message>
    <message>
        <source>efficiency</source>
        <translation>效率</translation>
    </message>
    <message>
        <source>roofline time / measured time</source>
        <translation>Roofline 时间 / 实测时间</translation>
    </message>
    <message>
        <source>left of the ridge (%1 FLOP/byte): under the memory slope</source>
        <translation>位于拐点（%1 FLOP/字节）左侧：受内存带宽斜线限制</translation>
    </message>
    <message>
        <source>right of the ridge (%1 FLOP/byte): under the compute ceiling</source>
        <translation>位于拐点（%1 FLOP/字节）右侧：受算力上限限制</translation>
    </message>
    <message>
        <source>roofline position</source>
        <translation>Roofline 位置</translation>
    </message>
    <message>
        <source>Findings</source>
        <translation>诊断结果</translation>
    </message>
    <message>
        <source>above 100 %: faster than the device figures allow (cache effects or calibration)</source>
        <translation>超过 100 %：快于设备参数允许的速度（缓存效应或校准问题）</translation>
    </message>
    <message>
        <source>largest</source>
        <translation>最大值</translation>
    </message>
    <message>
        <source>Efficiency</source>
        <translation>效率</translation>
    </message>
    <message numerus="yes">
        <source>%n measured nodes</source>
        <translation>
            <numerusform>%n 个实测节点</numerusform>
        </translation>
    </message>
    <message>
        <source>roofline time / measured time, summed over the selection</source>
        <translation>Roofline 时间 / 实测时间，按所选节点求和</translation>
    </message>
    <message>
        <source>profiled span</source>
        <translation>性能采集跨度</translation>
    </message>
    <message>
        <source>Includes the profiler&apos;s own cost for every node of its body; the time above is what the run without the profiler leaves it, never more than the latency.</source>
        <translation>包含性能采集器为其子图中每个节点付出的开销；上面的时间是不开启采集器时运行留给它的时间，绝不超过时延。</translation>
    </message>
    <message>
        <source>launches a kernel fused by ATC&apos;s graph engine</source>
        <translation>启动一个由 ATC 图引擎融合的 kernel</translation>
    </message>
    <message>
        <source>inside %1&apos;s kernel (fused by ATC&apos;s graph engine)</source>
        <translation>在 %1 的 kernel 内运行（由 ATC 图引擎融合）</translation>
    </message>
    <message>
        <source>compiled kernel</source>
        <translation>编译后的 kernel</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>profile</source>
        <translation>性能数据</translation>
    </message>
    <message>
        <source>device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>kernels</source>
        <translation>内核数</translation>
    </message>
    <message>
        <source>step</source>
        <translation>迭代</translation>
    </message>
    <message>
        <source>selection</source>
        <translation>选择</translation>
    </message>
    <message>
        <source>Click a finding to see its kernels here.</source>
        <translation>点击一个诊断项，在此查看它涉及的内核。</translation>
    </message>
    <message>
        <source>Kernel</source>
        <translation>内核</translation>
    </message>
    <message>
        <source>roofline</source>
        <translation>屋顶线</translation>
    </message>
    <message>
        <source>predicted</source>
        <translation>预测</translation>
    </message>
    <message>
        <source>the roofline scaled by the efficiency fitted on real kernels of its class</source>
        <translation>屋顶线时间按同类真实内核拟合的效率缩放</translation>
    </message>
    <message numerus="yes">
        <source>%n kernel(s) selected</source>
        <translation>
            <numerusform>已选择 %n 个内核</numerusform>
        </translation>
    </message>
    <message>
        <source>per step</source>
        <translation>每迭代</translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n constant(s) not drawn)</source>
        <translation>
            <numerusform>%1（%n 个常量未绘制）</numerusform>
        </translation>
    </message>
    <message>
        <source>%1, %2 of the roof (%3)</source>
        <translation>%1，达到上限（%3）的 %2</translation>
    </message>
</context>
<context>
    <name>msa::ui::OpCategory</name>
    <message>
        <source>convolution</source>
        <translation>卷积</translation>
    </message>
    <message>
        <source>matrix multiply</source>
        <translation>矩阵乘</translation>
    </message>
    <message>
        <source>activation</source>
        <translation>激活</translation>
    </message>
    <message>
        <source>normalization</source>
        <translation>归一化</translation>
    </message>
    <message>
        <source>pooling</source>
        <translation>池化</translation>
    </message>
    <message>
        <source>elementwise</source>
        <translation>逐元素</translation>
    </message>
    <message>
        <source>reduction</source>
        <translation>归约</translation>
    </message>
    <message>
        <source>shape / data movement</source>
        <translation>形状 / 数据搬运</translation>
    </message>
    <message>
        <source>type conversion</source>
        <translation>类型转换</translation>
    </message>
    <message>
        <source>control flow</source>
        <translation>控制流</translation>
    </message>
    <message>
        <source>graph input/output</source>
        <translation>图输入/输出</translation>
    </message>
    <message>
        <source>other</source>
        <translation>其他</translation>
    </message>
</context>
<context>
    <name>msa::ui::OpTimeChart</name>
    <message>
        <source>Time by op type: run Analyze</source>
        <translation>按算子类型统计耗时：请先运行分析</translation>
    </message>
    <message numerus="yes">
        <source>other (%n types)</source>
        <translation>
            <numerusform>其他（%n 种）</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 other op types, %2 nodes, %3</source>
        <translation>其他 %1 种算子类型，%2 个节点，%3</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>estimated</source>
        <translation>估算</translation>
    </message>
    <message>
        <source>milliseconds</source>
        <translation>毫秒</translation>
    </message>
    <message>
        <source>Time by op type, measured on %1</source>
        <translation>按算子类型统计耗时（%1 实测）</translation>
    </message>
    <message>
        <source>Time by op type, estimated (roofline, %1)</source>
        <translation>按算子类型统计耗时（估算：%1 上的 Roofline）</translation>
    </message>
    <message>
        <source>%1: %2 nodes, %3 (%4 of the node time)</source>
        <translation>%1：%2 个节点，%3（占节点总耗时的 %4）</translation>
    </message>
</context>
<context>
    <name>msa::ui::OverviewPanel</name>
    <message>
        <source>Latency, theoretical optimum and the gap appear here after Analyze (Ctrl+R).</source>
        <translation>运行分析（Ctrl+R）后，此处显示延迟、理论最优值及两者差距。</translation>
    </message>
    <message>
        <source>Latency</source>
        <translation>延迟</translation>
    </message>
    <message>
        <source>Theoretical optimum</source>
        <translation>理论最优</translation>
    </message>
    <message>
        <source>Gap</source>
        <translation>差距</translation>
    </message>
    <message>
        <source>After safe fixes</source>
        <translation>安全修复后</translation>
    </message>
    <message>
        <source>Findings</source>
        <translation>诊断结果</translation>
    </message>
    <message>
        <source>Analysed</source>
        <translation>分析对象</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>estimated (roofline)</source>
        <translation>估算（Roofline）</translation>
    </message>
    <message>
        <source>measured, median of %1 runs</source>
        <translation>实测，%1 次运行的中位数</translation>
    </message>
    <message>
        <source>each op at its roofline,
ideal fusion, no launches</source>
        <translation>每个算子达到其 Roofline，
理想融合，无下发开销</translation>
    </message>
    <message>
        <source>not computed: most of the run is
in operators of unknown cost</source>
        <translation>未计算：大部分运行时间
花在开销未知的算子上</translation>
    </message>
    <message>
        <source>green: the theoretical optimum; blue: what the safe fixes win; grey: the rest of the gap</source>
        <translation>绿色：理论最优；蓝色：安全修复可获得的收益；灰色：剩余差距</translation>
    </message>
    <message>
        <source>no safe fix saves time in this run</source>
        <translation>没有安全修复能缩短本次运行的时间</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:#6b7280&apos;&gt;%1 in the TOP list&lt;/span&gt;</source>
        <translation>&lt;span style=&apos;color:#6b7280&apos;&gt;TOP 列表中 %1 项&lt;/span&gt;</translation>
    </message>
    <message>
        <source>%1 · goal %2 · %3</source>
        <translation>%1 · 目标 %2 · %3</translation>
    </message>
    <message>
        <source>%1 nodes</source>
        <translation>%1 个节点</translation>
    </message>
    <message>
        <source>estimated for the edited model
from the measured run</source>
        <translation>根据实测运行估算
（已编辑的模型）</translation>
    </message>
    <message>
        <source>measured with ONNX Runtime&apos;s optimizer,
median of %1 runs</source>
        <translation>启用 ONNX Runtime 图优化实测，
%1 次运行的中位数</translation>
    </message>
    <message>
        <source>p10–p90 %1–%2</source>
        <translation>p10–p90 %1–%2</translation>
    </message>
    <message>
        <source>%1 without the runtime&apos;s optimizer</source>
        <translation>关闭运行时图优化：%1</translation>
    </message>
    <message>
        <source>none: the run is faster than the optimum,
also after recalibrating (cache effects)</source>
        <translation>无：实测快于理论最优，
重新校准后依然如此（缓存效应）</translation>
    </message>
    <message>
        <source>none: the run is faster than the optimum
the device figures give (cache effects)</source>
        <translation>无：实测快于按设备参数
算出的理论最优（缓存效应）</translation>
    </message>
    <message numerus="yes">
        <source>%n applied by the runtime itself (not counted as time to gain)</source>
        <translation>
            <numerusform>%n 项由运行时自动处理（不计入可节省时间）</numerusform>
        </translation>
    </message>
    <message>
        <source>estimated on the graph ATC compiles:
%1 → %2 launches, %3 fused kernels</source>
        <translation>按 ATC 编译后的图估算：
下发次数 %1 → %2，融合出 %3 个算子</translation>
    </message>
    <message numerus="yes">
        <source>%n device task(s)</source>
        <translation>
            <numerusform>%n 个设备任务</numerusform>
        </translation>
    </message>
    <message>
        <source>one step, from the profiler&apos;s step record</source>
        <translation>一个迭代，取自性能工具的迭代记录</translation>
    </message>
    <message>
        <source>the rows&apos; own time: an excerpt of a longer run</source>
        <translation>各行自身耗时：较长运行的节选</translation>
    </message>
    <message>
        <source>one step, the median of the timeline&apos;s steps</source>
        <translation>一个迭代，时间线各迭代的中位数</translation>
    </message>
    <message>
        <source>the kernels&apos; span</source>
        <translation>内核的时间跨度</translation>
    </message>
    <message>
        <source>the priced kernels at their rooflines;
communication and idle time have none</source>
        <translation>已定价内核按其屋顶线计；
通信与空闲时间没有屋顶线</translation>
    </message>
    <message>
        <source>at the %1 the run itself reached</source>
        <translation>按本次运行自身达到的 %1 计</translation>
    </message>
    <message>
        <source>running at %1 of the optimum</source>
        <translation>当前性能为理论最优的 %1</translation>
    </message>
    <message>
        <source>over the %1 of the run of known cost</source>
        <translation>基于开销已知的 %1 运行时间</translation>
    </message>
    <message>
        <source>%1 (estimated),
%2 saved</source>
        <translation>%1（估算），
节省 %2</translation>
    </message>
    <message>
        <source>not computed: no operator
of known cost</source>
        <translation>未计算：没有开销
已知的算子</translation>
    </message>
    <message>
        <source>analysis took %1</source>
        <translation>分析耗时 %1</translation>
    </message>
</context>
<context>
    <name>msa::ui::ProfileFileDialog</name>
    <message>
        <source>File or folder:</source>
        <translation>文件或目录：</translation>
    </message>
    <message>
        <source>Profiles (%1)</source>
        <translation>性能数据 (%1)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
</context>
<context>
    <name>msa::ui::ProfileProcess</name>
    <message>
        <source>Unknown device &apos;%1&apos; (this build profiles on cpu%2).</source>
        <translation>未知设备“%1”（此版本支持在 cpu%2 上采集性能数据）。</translation>
    </message>
    <message>
        <source>Cannot create a temporary folder for the profile: %1</source>
        <translation>无法为性能数据创建临时文件夹：%1</translation>
    </message>
    <message>
        <source>Cannot start the profiler (%1): %2</source>
        <translation>无法启动性能分析进程（%1）：%2</translation>
    </message>
    <message>
        <source>The profiler did not finish within %1 s and was stopped.</source>
        <translation>性能分析进程未在 %1 秒内完成，已被终止。</translation>
    </message>
    <message>
        <source>The profiler crashed (killed by signal %1); the model may be unsupported by the runtime.</source>
        <translation>性能分析进程崩溃（被信号 %1 终止）；运行时可能不支持该模型。</translation>
    </message>
    <message>
        <source>The profiler failed with exit code %1.</source>
        <translation>性能分析进程失败，退出码 %1。</translation>
    </message>
    <message>
        <source>The profiler was stopped from outside (exit code 5).</source>
        <translation>性能分析进程被外部终止（退出码 5）。</translation>
    </message>
    <message>
        <source>The profiler exited normally but wrote no result.</source>
        <translation>性能分析进程正常退出，但未写入结果。</translation>
    </message>
    <message>
        <source>The profiler&apos;s result cannot be read (%1).</source>
        <translation>无法读取性能分析结果（%1）。</translation>
    </message>
    <message>
        <source>The profiler&apos;s result is not valid JSON.</source>
        <translation>性能分析结果不是有效的 JSON。</translation>
    </message>
    <message>
        <source>The profiler&apos;s result is not a profile: %1</source>
        <translation>性能分析结果不是有效的性能数据：%1</translation>
    </message>
</context>
<context>
    <name>msa::ui::ProgressStage</name>
    <message>
        <source>reading the model</source>
        <translation>读取模型</translation>
    </message>
    <message>
        <source>inferring shapes</source>
        <translation>推断形状</translation>
    </message>
    <message>
        <source>costing the operators</source>
        <translation>估算算子开销</translation>
    </message>
    <message>
        <source>running the rules</source>
        <translation>运行规则</translation>
    </message>
    <message>
        <source>ranking the findings</source>
        <translation>排序诊断项</translation>
    </message>
    <message>
        <source>profiling</source>
        <translation>采集性能数据</translation>
    </message>
    <message>
        <source>preparing inputs</source>
        <translation>准备输入</translation>
    </message>
    <message>
        <source>timing end to end</source>
        <translation>端到端计时</translation>
    </message>
    <message>
        <source>comparing outputs</source>
        <translation>对比输出</translation>
    </message>
    <message>
        <source>importing the profile</source>
        <translation>导入性能数据</translation>
    </message>
    <message>
        <source>mapping the profile onto the graph</source>
        <translation>将性能数据映射到计算图</translation>
    </message>
    <message>
        <source>profiling on the CPU (per operator)</source>
        <translation>正在 CPU 上采集性能数据（逐算子）</translation>
    </message>
    <message>
        <source>profiling on the CPU (runtime optimizations on)</source>
        <translation>正在 CPU 上采集性能数据（开启运行时优化）</translation>
    </message>
    <message>
        <source>profiling on the Ascend NPU</source>
        <translation>正在昇腾 NPU 上采集性能数据</translation>
    </message>
    <message>
        <source>writing the edited model for the profiler</source>
        <translation>正在为性能采集写出修改后的模型</translation>
    </message>
    <message>
        <source>calibrating this CPU&apos;s roofline (first measured analysis; cached)</source>
        <translation>正在校准本机 CPU 的 Roofline（首次实测分析；结果会缓存）</translation>
    </message>
</context>
<context>
    <name>msa::ui::Roof</name>
    <message>
        <source>cube unit</source>
        <translation>Cube 单元</translation>
    </message>
    <message>
        <source>vector unit</source>
        <translation>Vector 单元</translation>
    </message>
    <message>
        <source>all cores</source>
        <translation>全部核心</translation>
    </message>
</context>
<context>
    <name>msa::ui::RooflineChart</name>
    <message>
        <source>Roofline: run Analyze</source>
        <translation>Roofline：请先运行分析</translation>
    </message>
    <message>
        <source>arithmetic intensity (FLOP/byte)</source>
        <translation>计算强度（FLOP/字节）</translation>
    </message>
    <message>
        <source>achieved GFLOP/s (measured)</source>
        <translation>实际 GFLOP/s（实测）</translation>
    </message>
    <message>
        <source>achieved GFLOP/s (estimated)</source>
        <translation>实际 GFLOP/s（估算）</translation>
    </message>
    <message>
        <source>memory %1B/s</source>
        <translation>内存带宽 %1B/s</translation>
    </message>
    <message>
        <source>%1 %2FLOP/s</source>
        <translation>%1 %2FLOP/s</translation>
    </message>
    <message>
        <source>%1 · %2 FLOP/byte · %3FLOP/s</source>
        <translation>%1 · %2 FLOP/字节 · %3FLOP/s</translation>
    </message>
    <message numerus="yes">
        <source>Roofline on %1: %n operators</source>
        <translation>
            <numerusform>%1 上的 Roofline：%n 个算子</numerusform>
        </translation>
    </message>
    <message>
        <source>achieved TFLOP/s (measured)</source>
        <translation>实际 TFLOP/s（实测）</translation>
    </message>
    <message>
        <source>achieved TFLOP/s (estimated)</source>
        <translation>实际 TFLOP/s（估算）</translation>
    </message>
    <message>
        <source>compute-bound</source>
        <translation>计算受限</translation>
    </message>
    <message>
        <source>memory-bound</source>
        <translation>访存受限</translation>
    </message>
    <message>
        <source>launch-overhead-bound</source>
        <translation>下发开销受限</translation>
    </message>
    <message>
        <source>efficiency %1 of the roofline</source>
        <translation>效率：Roofline 的 %1</translation>
    </message>
</context>
<context>
    <name>msa::ui::RunDeltaModel</name>
    <message>
        <source>Computing</source>
        <translation>计算</translation>
    </message>
    <message>
        <source>Communication not overlapped</source>
        <translation>未被掩盖的通信</translation>
    </message>
    <message>
        <source>Communication overlapped</source>
        <translation>被掩盖的通信</translation>
    </message>
    <message>
        <source>Free</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>Compute</source>
        <translation>计算</translation>
    </message>
    <message>
        <source>Collectives exposed</source>
        <translation>暴露的集合通信</translation>
    </message>
    <message>
        <source>Point-to-point exposed</source>
        <translation>暴露的点对点通信</translation>
    </message>
    <message>
        <source>Data loading</source>
        <translation>数据加载</translation>
    </message>
    <message>
        <source>Idle</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>迭代</translation>
    </message>
    <message>
        <source>Rank %1 (stage %2)</source>
        <translation>卡 %1（流水线阶段 %2）</translation>
    </message>
    <message>
        <source>Rank %1</source>
        <translation>卡 %1</translation>
    </message>
    <message>
        <source>step</source>
        <translation>迭代</translation>
    </message>
    <message>
        <source>compute</source>
        <translation>计算</translation>
    </message>
    <message>
        <source>idle</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>Launches per step: %1 in A, %2 in B</source>
        <translation>每迭代下发：A 中 %1 次，B 中 %2 次</translation>
    </message>
    <message>
        <source>only in A</source>
        <translation>仅在 A 中</translation>
    </message>
    <message>
        <source>only in B</source>
        <translation>仅在 B 中</translation>
    </message>
    <message>
        <source>slower</source>
        <translation>变慢</translation>
    </message>
    <message>
        <source>faster</source>
        <translation>变快</translation>
    </message>
    <message>
        <source>within noise</source>
        <translation>在噪声范围内</translation>
    </message>
    <message>
        <source>Kernel type</source>
        <translation>内核类型</translation>
    </message>
    <message>
        <source>Per step</source>
        <translation>每迭代</translation>
    </message>
    <message>
        <source>A (ms)</source>
        <translation>A (ms)</translation>
    </message>
    <message>
        <source>B (ms)</source>
        <translation>B (ms)</translation>
    </message>
    <message>
        <source>Change (ms)</source>
        <translation>变化 (ms)</translation>
    </message>
    <message>
        <source>B / A</source>
        <translation>B / A</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>结论</translation>
    </message>
</context>
<context>
    <name>msa::ui::TaskStatus</name>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>msa::ui::WhatIfPanel</name>
    <message>
        <source>Open a model first: What If builds its variants from the model on screen.</source>
        <translation>请先打开模型：假设分析基于当前显示的模型构建变体。</translation>
    </message>
    <message>
        <source>Wrote %1 and %1.session.json.</source>
        <translation>已写入 %1 和 %1.session.json。</translation>
    </message>
    <message>
        <source>Accuracy bound: cosine=MIN,top1=MIN[,max_rel=MAX]. A variant is within it when every output meets it on the same inputs.</source>
        <translation>精度界限：cosine=最小值,top1=最小值[,max_rel=最大值]。在相同输入上每个输出都满足时，变体即在界限内。</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Write the selected variant (measured again, within the bound) and its session settings, never over the original</source>
        <translation>写出所选变体（重新实测，且在精度界限内）及其会话设置，绝不覆盖原模型</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Run What If</source>
        <translation>运行假设分析</translation>
    </message>
    <message>
        <source>Building, checking and measuring the variants beside the original…</source>
        <translation>正在构建、检查各变体，并与原模型并排实测…</translation>
    </message>
    <message>
        <source>What If builds int8, session-setting and bf16 variants of the model on screen, checks each against the original on the same inputs and measures it beside the original as deployed. Nothing changes until you export one.</source>
        <translation>假设分析为当前模型构建 int8、会话设置和 bf16 变体，在相同输入上与原模型逐一比对，并与按部署配置运行的原模型并排实测。在导出某个变体之前，不会改动任何内容。</translation>
    </message>
    <message>
        <source>Fastest within the bound: %1, %2 measured (%3 predicted)</source>
        <translation>精度界限内最快：%1，实测 %2（预测 %3）</translation>
    </message>
    <message>
        <source>No variant within the bound was measured faster than the original.</source>
        <translation>精度界限内没有实测快于原模型的变体。</translation>
    </message>
    <message>
        <source>Accuracy on seeded random inputs: it says nothing about real data (msadvisor-cli what-if --inputs DIR).</source>
        <translation>精度基于固定种子的随机输入，不代表真实数据上的精度（msadvisor-cli what-if --inputs DIR）。</translation>
    </message>
    <message>
        <source>Export Variant</source>
        <translation>导出变体</translation>
    </message>
    <message>
        <source>ONNX models (*.onnx)</source>
        <translation>ONNX 模型 (*.onnx)</translation>
    </message>
    <message>
        <source>Measured on a busy machine: the runtime&apos;s threads got %1 of the CPU.</source>
        <translation>在繁忙的机器上实测：运行时线程只获得了 %1 的 CPU。</translation>
    </message>
    <message>
        <source>Original, estimated on %1: %2</source>
        <translation>原模型，在 %1 上估算：%2</translation>
    </message>
    <message numerus="yes">
        <source>Original as deployed: %1 (p10 %2, p90 %3), %n thread(s)</source>
        <translation>
            <numerusform>原模型（部署配置）：%1（p10 %2，p90 %3），%n 个线程</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>msa::ui::WhatIfVariantsModel</name>
    <message>
        <source>estimated, accuracy not measured</source>
        <translation>估算值，未测精度</translation>
    </message>
    <message>
        <source>the runtime cannot run it</source>
        <translation>运行时无法运行</translation>
    </message>
    <message>
        <source>within the bound</source>
        <translation>在精度界限内</translation>
    </message>
    <message>
        <source>outside the bound</source>
        <translation>超出精度界限</translation>
    </message>
    <message>
        <source>Variant</source>
        <translation>变体</translation>
    </message>
    <message>
        <source>Speedup</source>
        <translation>加速比</translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation>预测</translation>
    </message>
    <message>
        <source>Latency ms (p10–p90)</source>
        <translation>延迟 ms（p10–p90）</translation>
    </message>
    <message>
        <source>Cosine</source>
        <translation>余弦相似度</translation>
    </message>
    <message>
        <source>Top-1</source>
        <translation>Top-1</translation>
    </message>
    <message>
        <source>Accuracy bound</source>
        <translation>精度界限</translation>
    </message>
</context>
</TS>
