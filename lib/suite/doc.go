// Package suite is ctx suite: the runs of one evaluation (a benchmark's
// tasks, an Inspect eval's samples, rollouts of one task, a harness's
// trials) stored as packs and listed, task by task, in a suite object
// named by refs/suites/NAME; its listing (show: the runs by verdict,
// pass@k), the comparison of two suites task by task (diff: by run, or by
// pass rate when tasks were run several times; errored runs apart; step
// drift; McNemar's or the sign test and the rate difference's interval;
// JSON, tables, a page, JUnit XML) and its rows for tables elsewhere
// (export). It reads what evaluators hand over: results files, a
// Terminal-Bench run folder, a Harbor job folder, results alone.
//
// It reads transcripts through lib/convert and packs them through
// lib/pack's Logs and Save, as ctx convert | ctx pack - does, reads each
// run's fields as every verb does (pack.RunTask, pack.Totals), compares
// runs with lib/diff's engine and draws the comparison's page with
// lib/htmlview, from the reports it made; it never writes outside the
// store but the files export is asked to write.
package suite
