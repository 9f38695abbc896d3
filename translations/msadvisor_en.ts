<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>FileColumns</name>
    <message>
        <source>ONNX model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 file</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>QAbstractFileIconProvider</name>
    <message>
        <source>Folder</source>
        <comment>All other platforms</comment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shortcut</source>
        <comment>All other platforms</comment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Drive</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>Refusing to write over the opened model %1: choose another file name.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot write %1: it is a folder.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot export %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot export %1: the report is written as .html, .json or .md.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot export %1: no graph is shown.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot export %1: not enough memory for a %2 × %3 image.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot export %1: PNG encoding failed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot export %1: the graph is written as .svg or .png.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b style=&apos;color:#b91c1c&apos;&gt;Verification failed:&lt;/b&gt; %1&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>runtime</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max abs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max rel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;ONNX checker: %1&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;Not checked: %1&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;Latency not measured: %1&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 × the output&apos;s scale</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;Tolerance: atol %1, rtol %2 (an element fails where both are exceeded).&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>beyond tolerance</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>measured</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>estimated on %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>estimated on %1, each graph as ATC compiles it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b style=&apos;color:#b45309&apos;&gt;Not verified:&lt;/b&gt; %1&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;Relative to the outputs&apos; magnitude: largest difference %1 of the largest reference value, cosine similarity %2%3.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Refusing to write over a file the document reads (%1): choose another file name.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>per kernel as the devices measured them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, top-1 class agreement %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>&lt;p&gt;&lt;b style=&apos;color:#15803d&apos;&gt;Outputs match within tolerance&lt;/b&gt; (%n output(s)): every element is within atol %1 or rtol %2 of the original&apos;s; the closest came to %3 of its tolerance. Largest differences: %4 absolute, %5 relative (not on the same element).&lt;/p&gt;</source>
        <translation>
            <numerusform>&lt;p&gt;&lt;b style=&apos;color:#15803d&apos;&gt;Outputs match within tolerance&lt;/b&gt; (%n output): every element is within atol %1 or rtol %2 of the original&apos;s; the closest came to %3 of its tolerance. Largest differences: %4 absolute, %5 relative (not on the same element).&lt;/p&gt;</numerusform>
            <numerusform>&lt;p&gt;&lt;b style=&apos;color:#15803d&apos;&gt;Outputs match within tolerance&lt;/b&gt; (%n outputs): every element is within atol %1 or rtol %2 of the original&apos;s; the closest came to %3 of its tolerance. Largest differences: %4 absolute, %5 relative (not on the same element).&lt;/p&gt;</numerusform>
        </translation>
    </message>
    <message>
        <source>&lt;p&gt;Measured on this CPU (ONNX Runtime, median of %1 runs; %2):&lt;br&gt;&lt;b&gt;as deployed (runtime optimizer on): %3 → %4, speedup %5&lt;/b&gt;&lt;br&gt;runtime optimizer disabled: %6 → %7, speedup %8&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;Advisor&apos;s estimate: speedup %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (measured %1, error %2)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::AnalysisController</name>
    <message>
        <source>Bind the symbolic input dims to profile: %1 (Analyze ▸ Run…, Symbolic dims).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The analysis failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Analysing…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::AnalyzeDialog</name>
    <message>
        <source>Analyze</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU — measured here with ONNX Runtime</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ascend NPU — measured with ACL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Estimate for a device profile (no measurement)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ascend NPU — unavailable (no CANN in this build)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Latency (one request as fast as possible)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Throughput (requests per second)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edge (small batches, launch overhead matters)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Datacenter (large batches, compute and memory matter)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Symbolic dim</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The model&apos;s inputs have fixed shapes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Profiling needs a value for every symbolic input dim.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Timed runs per profile; the median is reported</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>all cores (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run on:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Device profile:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ranking</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Goal:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scenario:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Measurement</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Iterations:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Threads:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Input shapes:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ascend: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Profiles twice in a separate process (runtime optimizations off, then on) and analyses against this host&apos;s calibrated roofline.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compiles with ATC and profiles on the NPU; the profile gives the roofs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No measurement: every operator at its roofline on the chosen device profile.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Analysis Settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Input</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Value or file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Empty: seeded random values shaped by how the model uses them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Input values:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>random</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A number that fills the input, or the path of a .npy or .pb file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a .npy or .pb file for this input</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Input Values</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tensors (*.npy *.pb)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A profiling run that takes longer is stopped; the application stays usable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Timeout:</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::ChartsPanel</name>
    <message>
        <source>Op types</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Roofline</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Before / after</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Where the time goes, by operator type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Each operator against the device&apos;s compute and memory roofs; click a point to select its node</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Original latency, after the safe fixes, the theoretical optimum and the verified result</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::CompareDeltaModel</name>
    <message>
        <source>removed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>added</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>slower</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>faster</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>within noise</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Node</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A (ms)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>B (ms)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change (ms)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>B / A</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::CompareNodesModel</name>
    <message>
        <source>added in B</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>removed in B</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>changed (op, inputs or attributes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Node</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::ComparePanel</name>
    <message>
        <source>Largest changes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nodes added, removed, changed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write the comparison as JSON, the same document as msadvisor-cli compare --json</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A: %1 · B: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 → %2 nodes: %3 added, %4 removed, %5 changed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>There is no comparison to export.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export Comparison</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Step and ranks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kernel types</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>File ▸ Compare With… puts a second model, a saved analysis, or another run the device wrote (a profiler folder or trace) beside this one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A: %1 · %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>B: %1 · %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kernels slower: %1, faster: %2 (beyond %3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n node(s) slower, %1 faster (beyond %2)</source>
        <translation>
            <numerusform>%n node slower, %1 faster (beyond %2)</numerusform>
            <numerusform>%n nodes slower, %1 faster (beyond %2)</numerusform>
        </translation>
    </message>
    <message>
        <source>total %1 → %2 (B/A %3), %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>step %1 → %2 (B/A %3)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::Docks</name>
    <message>
        <source>Overview</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Properties</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bottlenecks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The ranked list of what to fix appears here after Analyze.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Charts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compare</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What If</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::EditController</name>
    <message>
        <source>Applying fixes…</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Applied %n fix(es)</source>
        <translation>
            <numerusform>Applied %n fix</numerusform>
            <numerusform>Applied %n fixes</numerusform>
        </translation>
    </message>
    <message>
        <source>; re-analysis failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Apply failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot apply the fix</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Apply cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Verification failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Verification</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Verification could not run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot verify</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Verification cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Apply Fix</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Apply All &amp;Safe Fixes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Verify</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compare the edited model&apos;s outputs with the original&apos;s and measure both</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export Optimized &amp;ONNX…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export &amp;Report…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export &amp;Graph Image…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Apply: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select a finding (or its nodes) that has an automatic fix</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Apply %n safe fix(es) as one undo step</source>
        <translation>
            <numerusform>Apply %n safe fix as one undo step</numerusform>
            <numerusform>Apply %n safe fixes as one undo step</numerusform>
        </translation>
    </message>
    <message>
        <source>The current analysis has no safe automatic fix</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Apply</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select a finding (or its nodes) that has an automatic fix.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Verify</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing to verify: no fix has been applied to the model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Verifying against the original…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No model is open.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing to export: analyse the model first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export optimized ONNX</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ONNX models (*.onnx)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exported %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export report</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTML report (*.html);;JSON report (*.json);;Markdown report (*.md)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export graph image</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SVG image (*.svg);;PNG image (*.png)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>; %n safe finding(s) left, not applicable to the result (select one: Apply&apos;s tooltip says why)</source>
        <translation>
            <numerusform>; %n safe finding left, not applicable to the result (select one: Apply&apos;s tooltip says why)</numerusform>
            <numerusform>; %n safe findings left, not applicable to the result (select one: Apply&apos;s tooltip says why)</numerusform>
        </translation>
    </message>
    <message>
        <source>Verified: outputs match within tolerance</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot apply “%1”: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unsaved fixes</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n fix(es) applied to %1 have not been exported. Export the optimized model first?</source>
        <translation>
            <numerusform>%n fix applied to %1 have not been exported. Export the optimized model first?</numerusform>
            <numerusform>%n fixes applied to %1 have not been exported. Export the optimized model first?</numerusform>
        </translation>
    </message>
    <message>
        <source>Export…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Discard</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Verification failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The edited model&apos;s outputs differ from the original&apos;s:&lt;br&gt;%1&lt;br&gt;&lt;br&gt;Export it anyway?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export Anyway</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Undo the Last Fix</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not exported: the last verification failed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This fix writes %1: only ONNX Runtime runs the fixed model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not verified: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Verified: outputs match within tolerance; measured speedup %1 as deployed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Undo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Undo %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Redo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Redo %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::EditSession</name>
    <message>
        <source>The finding %1 has no automatic fix in the current analysis.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The current analysis has no safe automatic fix.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Apply %n Safe Fix(es)</source>
        <translation>
            <numerusform>Apply %n Safe Fix</numerusform>
            <numerusform>Apply %n Safe Fixes</numerusform>
        </translation>
    </message>
    <message>
        <source>it is not in the current analysis</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it is advice only: no automatic rewrite fixes it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>its rewrite is not legal here</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>its rewrite is not legal here: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it did not apply to this model: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>its fix writes %1, which only ONNX Runtime runs, and this analysis targets %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::FindBar</name>
    <message>
        <source>Find:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>node name or op type (e.g. MatMul)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Previous match (Shift+Enter)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next match (Enter)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close (Esc)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no match</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::FindingsModel</name>
    <message>
        <source>%1 +%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (runtime)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>blocked</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>advice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>auto · safe</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>done at load</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>auto</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time saved when fixed (after overlap accounting: no node&apos;s time is counted twice)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Speedup of the affected part alone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Share of the whole run the fix saves</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>auto: an optimizer pass fixes it; safe: applied by Apply All Safe; advice: needs a human</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>#</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Priority</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Category</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Finding</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Location</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Impact</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Local</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Global</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fix</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%1 · %n more alike</source>
        <translation>
            <numerusform>%1 · %n more alike</numerusform>
            <numerusform>%1 · %n more alike</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>msa::ui::FindingsPanel</name>
    <message>
        <source>Nothing to report here for this model on this device.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>No bottleneck left to fix: the runtime already applies %n of the findings when it loads the model, and the others have no measurable share of the run. The category tables list every finding.</source>
        <translation>
            <numerusform>No bottleneck left to fix: the runtime already applies %n of the findings when it loads the model, and the others have no measurable share of the run. The category tables list every finding.</numerusform>
            <numerusform>No bottleneck left to fix: the runtime already applies %n of the findings when it loads the model, and the others have no measurable share of the run. The category tables list every finding.</numerusform>
        </translation>
    </message>
    <message>
        <source>No bottleneck left to fix: no finding has a measurable share of the run. The category tables list every finding.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Nothing of this kind in this analysis. Its %n finding(s) are under: %1.</source>
        <translation>
            <numerusform>Nothing of this kind in this analysis. Its one finding is under: %1.</numerusform>
            <numerusform>Nothing of this kind in this analysis. Its %n findings are under: %1.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n finding(s) · %1 to gain (%2 of the run)</source>
        <translation>
            <numerusform>%n finding · %1 to gain (%2 of the run)</numerusform>
            <numerusform>%n findings · %1 to gain (%2 of the run)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>msa::ui::GraphScene</name>
    <message numerus="yes">
        <source>%n groups</source>
        <translation>
            <numerusform>%n group</numerusform>
            <numerusform>%n groups</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n node(s)</source>
        <translation>
            <numerusform>%n node</numerusform>
            <numerusform>%n nodes</numerusform>
        </translation>
    </message>
    <message>
        <source>double-click to expand</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::GraphWidget</name>
    <message>
        <source>Open an ONNX model (Ctrl+O) or drop one here</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The graph could not be laid out.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layout cancelled. View ▸ Collapse All Blocks draws a smaller graph.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Laying out %1 nodes…</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>no value: %n node(s) whose shapes depend on %1 (Analyze ▸ Run… binds them)</source>
        <translation>
            <numerusform>no value: %n node whose shape depends on %1 (Analyze ▸ Run… binds them)</numerusform>
            <numerusform>no value: %n nodes whose shapes depend on %1 (Analyze ▸ Run… binds them)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>msa::ui::HeatLegend</name>
    <message>
        <source>log scale</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>linear scale</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>green faster, red slower</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::HeatmapChooser</name>
    <message>
        <source>Colour nodes by a metric</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>linear</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>log</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Heatmap scale</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Heatmap</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Heatmap S&amp;cale</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Linear Scale</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lo&amp;g Scale</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>None (op category)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::Language</name>
    <message>
        <source>&amp;Language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System Default</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::LatencyChart</name>
    <message>
        <source>Latency before and after: run Analyze</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Original (measured)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Original (estimated)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>After safe fixes (estimated)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Theoretical optimum</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optimized (measured)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>milliseconds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Latency on %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Original</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Safe fixes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optimum</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Verified</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>measured speedup %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>safe fixes %1 (estimated)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::MainWindow</name>
    <message>
        <source>Laying out %1 boxes…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>layout from cache</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layout failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layout cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Open…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open an ONNX model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Find…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Find a node by name or op type (Ctrl+F)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zoom &amp;In</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zoom &amp;Out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Fit to Window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Actual Size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show &amp;Shapes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show tensor shapes on edges</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Expand Block</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open the selected collapsed block (or double-click it)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Collapse Block</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Collapse the block around the selection (or double-click its title)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>E&amp;xpand All Blocks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Expand all blocks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Drawing all %1 nodes at once takes Graphviz a while (you can cancel it). Continue?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Co&amp;llapse All Blocks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Default Blocks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Collapse as when the model was opened</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;About msadvisor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>About msadvisor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;h3&gt;msadvisor %1&lt;/h3&gt;&lt;p&gt;Model optimization advisor for ONNX models on Ascend NPUs and CPUs.&lt;/p&gt;&lt;p&gt;Qt %2 · Graphviz %3&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Panels</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Main</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> Heatmap: </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ready</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1  ·  %2 nodes  ·  %3 boxes drawn  ·  %4 parameters  ·  opset %5</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ONNX models (*.onnx);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not open %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot open model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clear List</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Analysis done: latency %1 (%2), %n finding(s)</source>
        <translation>
            <numerusform>Analysis done: latency %1 (%2), %n finding</numerusform>
            <numerusform>Analysis done: latency %1 (%2), %n findings</numerusform>
        </translation>
    </message>
    <message>
        <source>Analysis failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Analysis failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Analysis cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Run…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Analyze</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Profile and analyse the model: latency, bottlenecks, what to fix (Ctrl+R)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Analyze</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a model first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>An analysis is already running.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The analysis could not start.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Import Profile…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import Profile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open &amp;Profile…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Analyse a profile from a device (msprof, torch_npu, ONNX Runtime, TensorRT…) without its model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Analyse the open model with a profile taken elsewhere, instead of measuring here</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1  ·  a profile analysed without its model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Analysing…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Compare With…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Put a second model, or a saved analysis or profile, beside this one: per-node changes on the graph</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compared: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Comparison failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compare With</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Comparing with %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (profile) — msadvisor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A profile analysed without its model: %1. Its findings are in the docks; File ▸ Open… shows a model&apos;s graph.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open Profile: a file of a run or a profiler folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ONNX models and analyses (*.onnx *.json)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;What If…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Build int8, session-setting and bf16 variants, check their accuracy and measure them beside the original</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What If: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What If cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exported %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What If failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What If</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What If: building and measuring the variants…</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>What If: %n variant(s)</source>
        <translation>
            <numerusform>What If: %n variant</numerusform>
            <numerusform>What If: %n variants</numerusform>
        </translation>
    </message>
    <message>
        <source>layout %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>layout adjusted to the edit</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::Minimap</name>
    <message>
        <source>Overview: click or drag to move the view</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::NodeMetric</name>
    <message>
        <source>Estimated time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FLOPs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory traffic</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Measured time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Measured time share</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Efficiency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Estimated time share</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>roofline, %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cost model; a multiply-add counts 2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cost model: bytes read + written</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>weight elements each node reads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>share of the measured operator time, %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>median per run, %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deployed time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deployed time share</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>share of the deployed run (the runtime&apos;s optimizer on), %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>median per run, the runtime&apos;s optimizer on, %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>share of the operator time, the runtime&apos;s optimizer off, %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>roofline time / measured time, %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>share of the roofline estimate, %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>B − A per node, %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time change</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time saved by the variant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>predicted per layer, %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Accuracy cost of quantizing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>relative RMS error each int8 layer adds alone, %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::NodeProperties</name>
    <message>
        <source>Property</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 nodes selected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>total</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>producer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>opsets</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>nodes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>parameters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>scope blocks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Inputs and outputs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>in </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>out </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shape inference</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>warning</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Graph input</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Graph output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Node</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>op type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>category</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>scope</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(omitted)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>weight </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>constant </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>[unknown shape]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Inputs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Outputs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attributes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Documentation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>doc</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>compute-bound</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>memory-bound</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>launch-overhead-bound</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cost</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cost</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FLOPs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> FLOP (a multiply-add counts 2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MACs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bytes read</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> bytes, weights included</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bytes written</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>weight bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>intensity</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 FLOP/byte</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>roofline time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>roofline estimate on %1, launch included</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bound</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>elided by the compiler</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Measured</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Analysis</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>median per run; a fused entry&apos;s time is split over its nodes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>median / p10 / p90</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 runs of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>kernel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>runs with</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n nodes in one kernel</source>
        <translation>
            <numerusform>%n node in one kernel</numerusform>
            <numerusform>%n nodes in one kernel</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>fused with %n other nodes</source>
        <translation>
            <numerusform>fused with %n other node</numerusform>
            <numerusform>fused with %n other nodes</numerusform>
        </translation>
    </message>
    <message>
        <source>optimized runtime</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>share of time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not run (folded or removed by the runtime)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not profiled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>efficiency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>roofline time / measured time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>left of the ridge (%1 FLOP/byte): under the memory slope</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>right of the ridge (%1 FLOP/byte): under the compute ceiling</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>roofline position</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Findings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>above 100 %: faster than the device figures allow (cache effects or calibration)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>largest</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Efficiency</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n measured nodes</source>
        <translation>
            <numerusform>%n measured node</numerusform>
            <numerusform>%n measured nodes</numerusform>
        </translation>
    </message>
    <message>
        <source>roofline time / measured time, summed over the selection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>profiled span</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Includes the profiler&apos;s own cost for every node of its body; the time above is what the run without the profiler leaves it, never more than the latency.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>launches a kernel fused by ATC&apos;s graph engine</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>inside %1&apos;s kernel (fused by ATC&apos;s graph engine)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>compiled kernel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>profile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>kernels</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>selection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Click a finding to see its kernels here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kernel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>roofline</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>predicted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the roofline scaled by the efficiency fitted on real kernels of its class</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n kernel(s) selected</source>
        <translation>
            <numerusform>%n kernel selected</numerusform>
            <numerusform>%n kernels selected</numerusform>
        </translation>
    </message>
    <message>
        <source>per step</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n constant(s) not drawn)</source>
        <translation>
            <numerusform>%1 (%n constant not drawn)</numerusform>
            <numerusform>%1 (%n constants not drawn)</numerusform>
        </translation>
    </message>
    <message>
        <source>%1, %2 of the roof (%3)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::OpCategory</name>
    <message>
        <source>convolution</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>matrix multiply</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>activation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>normalization</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>pooling</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>elementwise</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>reduction</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>shape / data movement</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>type conversion</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>control flow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>graph input/output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>other</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::OpTimeChart</name>
    <message>
        <source>Time by op type: run Analyze</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>other (%n types)</source>
        <translation>
            <numerusform>other (%n type)</numerusform>
            <numerusform>other (%n types)</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 other op types, %2 nodes, %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>measured</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>estimated</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>milliseconds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time by op type, measured on %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time by op type, estimated (roofline, %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 nodes, %3 (%4 of the node time)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::OverviewPanel</name>
    <message>
        <source>Latency, theoretical optimum and the gap appear here after Analyze (Ctrl+R).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Latency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Theoretical optimum</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gap</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>After safe fixes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Findings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Analysed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>measured</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>estimated (roofline)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>measured, median of %1 runs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>each op at its roofline,
ideal fusion, no launches</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not computed: most of the run is
in operators of unknown cost</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>green: the theoretical optimum; blue: what the safe fixes win; grey: the rest of the gap</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no safe fix saves time in this run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:#6b7280&apos;&gt;%1 in the TOP list&lt;/span&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 · goal %2 · %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 nodes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>estimated for the edited model
from the measured run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>measured with ONNX Runtime&apos;s optimizer,
median of %1 runs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>p10–p90 %1–%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 without the runtime&apos;s optimizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none: the run is faster than the optimum,
also after recalibrating (cache effects)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none: the run is faster than the optimum
the device figures give (cache effects)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n applied by the runtime itself (not counted as time to gain)</source>
        <translation>
            <numerusform>%n applied by the runtime itself (not counted as time to gain)</numerusform>
            <numerusform>%n applied by the runtime itself (not counted as time to gain)</numerusform>
        </translation>
    </message>
    <message>
        <source>estimated on the graph ATC compiles:
%1 → %2 launches, %3 fused kernels</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n device task(s)</source>
        <translation>
            <numerusform>%n device task</numerusform>
            <numerusform>%n device tasks</numerusform>
        </translation>
    </message>
    <message>
        <source>one step, from the profiler&apos;s step record</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the rows&apos; own time: an excerpt of a longer run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>one step, the median of the timeline&apos;s steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the kernels&apos; span</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the priced kernels at their rooflines;
communication and idle time have none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>at the %1 the run itself reached</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>running at %1 of the optimum</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>over the %1 of the run of known cost</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (estimated),
%2 saved</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not computed: no operator
of known cost</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>analysis took %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::ProfileFileDialog</name>
    <message>
        <source>File or folder:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Profiles (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::ProfileProcess</name>
    <message>
        <source>Unknown device &apos;%1&apos; (this build profiles on cpu%2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot create a temporary folder for the profile: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot start the profiler (%1): %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The profiler did not finish within %1 s and was stopped.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The profiler crashed (killed by signal %1); the model may be unsupported by the runtime.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The profiler failed with exit code %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The profiler was stopped from outside (exit code 5).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The profiler exited normally but wrote no result.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The profiler&apos;s result cannot be read (%1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The profiler&apos;s result is not valid JSON.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The profiler&apos;s result is not a profile: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::ProgressStage</name>
    <message>
        <source>reading the model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>inferring shapes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>costing the operators</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>running the rules</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ranking the findings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>profiling</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>preparing inputs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>timing end to end</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>comparing outputs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>importing the profile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>mapping the profile onto the graph</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>profiling on the CPU (per operator)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>profiling on the CPU (runtime optimizations on)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>profiling on the Ascend NPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>writing the edited model for the profiler</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>calibrating this CPU&apos;s roofline (first measured analysis; cached)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::Roof</name>
    <message>
        <source>cube unit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>vector unit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>all cores</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::RooflineChart</name>
    <message>
        <source>Roofline: run Analyze</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>arithmetic intensity (FLOP/byte)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>achieved GFLOP/s (measured)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>achieved GFLOP/s (estimated)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>memory %1B/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2FLOP/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 · %2 FLOP/byte · %3FLOP/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Roofline on %1: %n operators</source>
        <translation>
            <numerusform>Roofline on %1: %n operator</numerusform>
            <numerusform>Roofline on %1: %n operators</numerusform>
        </translation>
    </message>
    <message>
        <source>achieved TFLOP/s (measured)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>achieved TFLOP/s (estimated)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>compute-bound</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>memory-bound</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>launch-overhead-bound</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>efficiency %1 of the roofline</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::RunDeltaModel</name>
    <message>
        <source>Computing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Communication not overlapped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Communication overlapped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Free</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compute</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Collectives exposed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Point-to-point exposed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Data loading</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Idle</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rank %1 (stage %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rank %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>compute</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>idle</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>only in A</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>only in B</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>slower</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>faster</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>within noise</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kernel type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Per step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A (ms)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>B (ms)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change (ms)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>B / A</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Launches per step: %1 in A, %2 in B</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::TaskStatus</name>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>msa::ui::WhatIfPanel</name>
    <message>
        <source>Open a model first: What If builds its variants from the model on screen.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wrote %1 and %1.session.json.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Accuracy bound: cosine=MIN,top1=MIN[,max_rel=MAX]. A variant is within it when every output meets it on the same inputs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write the selected variant (measured again, within the bound) and its session settings, never over the original</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run What If</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Building, checking and measuring the variants beside the original…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What If builds int8, session-setting and bf16 variants of the model on screen, checks each against the original on the same inputs and measures it beside the original as deployed. Nothing changes until you export one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fastest within the bound: %1, %2 measured (%3 predicted)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No variant within the bound was measured faster than the original.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Accuracy on seeded random inputs: it says nothing about real data (msadvisor-cli what-if --inputs DIR).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export Variant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ONNX models (*.onnx)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Measured on a busy machine: the runtime&apos;s threads got %1 of the CPU.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Original, estimated on %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Original as deployed: %1 (p10 %2, p90 %3), %n thread(s)</source>
        <translation>
            <numerusform>Original as deployed: %1 (p10 %2, p90 %3), %n thread</numerusform>
            <numerusform>Original as deployed: %1 (p10 %2, p90 %3), %n threads</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>msa::ui::WhatIfVariantsModel</name>
    <message>
        <source>estimated, accuracy not measured</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the runtime cannot run it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>within the bound</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>outside the bound</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Variant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Speedup</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Latency ms (p10–p90)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cosine</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Top-1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Accuracy bound</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
