#!/usr/bin/env python3
"""Mutation testing of the C runtime's argument checks: each mutant below removes or weakens
one check that stands between a model file and memory (a kernel's, a backend's), and the test
named beside it must fail on the mutated source. A mutant that survives is a check no test
holds to, and fails this script.

Each mutant is applied to the working tree, tested, and undone (also when interrupted), one at
a time, in a target folder of its own (`target/c-mutants`): only the runtime crate and what
depends on it are rebuilt. Usage: scripts/check-c-mutants.py [NAME...] (every mutant when none
is named; `--list` lists them)."""

import os
import signal
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS = "runtime-c/kernels/tflite"
ARGUMENTS = ["-p", "arenaplan-host", "--test", "tflite_kernel_arguments"]
GOLDEN = ["-p", "arenaplan-host", "--test", "tflite_kernels"]
C_RUNTIME = ["-p", "arenaplan", "--test", "c_runtime"]

# (name, its edits: (file, the text as it is, the text mutated), the test that must fail:
# cargo's arguments, then the test filter). A check that another one backs up (a dilation of
# 0, refused by the geometry check and by the window rule) is one mutant removing both: either
# alone changes nothing, and is no test's to catch.
MUTANTS = [
    ("slice-last-index",
     [(f"{KERNELS}/strided_slice.c", " || last < 0 || last >= e) {", " || last < 0) {")],
     ARGUMENTS + ["a_slice_whose_last_index_leaves_its_dimension_is_refused"]),
    ("slice-first-index",
     [(f"{KERNELS}/strided_slice.c", "if (p.first[d] < 0 || p.first[d] >= e || ", "if (")],
     ARGUMENTS + ["a_slice_whose_last_index_leaves_its_dimension_is_refused"]),
    ("slice-step-zero",
     [(f"{KERNELS}/strided_slice.c", "p.step[d] == 0 || ", "")],
     ARGUMENTS + ["a_slice_step_of_zero_is_refused"]),
    ("fc-row-sums-size",
     [(f"{KERNELS}/fully_connected.c", "sums->size != depth * sizeof(int32_t) || ", "")],
     ARGUMENTS + ["fully_connected_row_sums_of_another_size_are_refused"]),
    ("quantize-ties",
     [(f"{KERNELS}/quantize.c", "if (frac >= 0.5f) {", "if (frac > 0.5f) {")],
     GOLDEN + ["quantize::float_to_int8_ties"]),
    ("conv-window-height",
     [(f"{KERNELS}/conv_call.c", "if (!window_fits(p->input_h,", "if (0 && !window_fits(p->input_h,")],
     ARGUMENTS + ["a_convolution_output_that_does_not_follow_from_its_input_is_refused"]),
    ("conv-window-width",
     [(f"{KERNELS}/conv_call.c",
       "        !window_fits(p->input_w, p->filter_w, p->stride_w, p->dilation_w, p->pad_w, p->output_w)) {",
       "        0) {")],
     ARGUMENTS + ["a_convolution_output_that_does_not_follow_from_its_input_is_refused"]),
    ("pool-window-height",
     [(f"{KERNELS}/pooling.c",
       "        !window_fits(p.input_h, p.filter_h, p.stride_h, 1, p.pad_h, p.output_h) ||\n", "")],
     ARGUMENTS + ["a_pooling_output_that_does_not_follow_from_its_input_is_refused"]),
    ("pool-window-width",
     [(f"{KERNELS}/pooling.c",
       "        !window_fits(p.input_w, p.filter_w, p.stride_w, 1, p.pad_w, p.output_w) ||\n", "")],
     ARGUMENTS + ["a_pooling_output_that_does_not_follow_from_its_input_is_refused"]),
    ("window-rule",
     [(f"{KERNELS}/common.h",
       "return (out == valid && pad == 0) || (out == same && pad == same_pad);", "return 1;")],
     ARGUMENTS + ["does_not_follow_from_its_input"]),
    ("conv-geometry-16-bits",
     [(f"{KERNELS}/conv_call.c",
       "if (geometry[i] <= 0 || geometry[i] > 65535) {", "if (geometry[i] <= 0) {")],
     ARGUMENTS + ["a_convolution_geometry_past_16_bits_is_refused"]),
    ("dilation-zero",
     [(f"{KERNELS}/conv_call.c",
       "if (geometry[i] <= 0 || geometry[i] > 65535) {", "if (geometry[i] < 0 || geometry[i] > 65535) {"),
      (f"{KERNELS}/common.h",
       "if (in <= 0 || taps <= 0 || stride <= 0 || dilation <= 0 || pad < 0 || out <= 0) {",
       "if (in <= 0 || taps <= 0 || stride <= 0 || pad < 0 || out <= 0) {")],
     ARGUMENTS + ["a_convolution_dilation_of_zero_is_refused"]),
    ("product-overflow",
     [(f"{KERNELS}/common.h", "return acc == 0 || xs[i] == 0 ? 0 : SIZE_MAX;", "return 0;")],
     ARGUMENTS + ["a_product_that_overflows_matches_no_buffer_not_an_empty_one"]),
    ("requantize-shift",
     [(f"{KERNELS}/common.h", "return shift >= -31 && shift <= 30;", "return 1;")],
     ARGUMENTS + ["a_requantization_shift_out_of_range_is_refused"]),
    ("io-counts-inputs",
     [(f"{KERNELS}/common.h",
       "ctx->ninputs < min_in || ctx->ninputs > max_in || ctx->noutputs != out", "ctx->noutputs != out")],
     ARGUMENTS + ["an_argument_list_other_than_the_kernel_reads_is_refused"]),
    ("io-counts-outputs",
     [(f"{KERNELS}/common.h", " || ctx->noutputs != out) {", ") {")],
     ARGUMENTS + ["an_argument_list_other_than_the_kernel_reads_is_refused"]),
    ("io-counts-extra",
     [(f"{KERNELS}/common.h",
       "return nargs >= io + min_extra && nargs <= io + max_extra;", "return nargs >= io + min_extra;")],
     ARGUMENTS + ["an_argument_list_other_than_the_kernel_reads_is_refused"]),
    ("io-counts-fewer",
     [(f"{KERNELS}/common.h",
       "return nargs >= io + min_extra && nargs <= io + max_extra;", "return nargs <= io + max_extra;")],
     ARGUMENTS + ["an_argument_list_other_than_the_kernel_reads_is_refused"]),
    ("pad-input-size",
     [(f"{KERNELS}/pad.c", "input->size != in_count * w ||", "")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("pad-output-size",
     [(f"{KERNELS}/pad.c", " ||\n        output->size != out_count * w) {", ") {")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("concat-input-size",
     [(f"{KERNELS}/concatenation.c", "if (inner < 0 || args[i].size != (size_t)p.outer * (size_t)inner) {",
       "if (inner < 0) {")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("concat-output-size",
     [(f"{KERNELS}/concatenation.c", "if (output->size != (size_t)p.outer * row) {", "if (0) {")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("transpose-conv-input-size",
     [(f"{KERNELS}/transpose_conv.c",
       "input->size != product4((size_t)p.batches, (size_t)p.input_h, (size_t)p.input_w, ic) ||", "")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("transpose-conv-filter-size",
     [(f"{KERNELS}/transpose_conv.c",
       "filter->size != product4(oc, (size_t)p.filter_h, (size_t)p.filter_w, ic) ||", "")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("transpose-conv-output-size",
     [(f"{KERNELS}/transpose_conv.c",
       " ||\n        output->size != product4((size_t)p.batches, (size_t)p.output_h, (size_t)p.output_w, oc)) {",
       ") {")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("fc-input-size",
     [(f"{KERNELS}/fully_connected.c", "input->size != product4(batches, accum, 1, 1) ||", "")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("quantize-sizes",
     [(f"{KERNELS}/quantize.c",
       "input->size / (size_t)p.input_width != output->size / (size_t)p.output_width ||", "")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("dequantize-output-size",
     [(f"{KERNELS}/dequantize.c", " || output->size != input->size / (size_t)p.input_width * 4u) {", ") {")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("cast-input-size",
     [(f"{KERNELS}/cast.c", "in->size != wi * n || ", "")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("cast-output-size",
     [(f"{KERNELS}/cast.c", " || out->size != wo * n) {", ") {")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("relu-input-size",
     [(f"{KERNELS}/relu.c", "if (in->size != n * w || out->size != n * w) {", "if (out->size != n * w) {")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("relu-output-size",
     [(f"{KERNELS}/relu.c", "if (in->size != n * w || out->size != n * w) {", "if (in->size != n * w) {")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("mean-input-size",
     [(f"{KERNELS}/mean.c", " || in->size != product4(in_count, w, 1, 1) ||", " ||")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("mean-output-size",
     [(f"{KERNELS}/mean.c", " ||\n        out->size != product4(out_count, w, 1, 1)) {", ") {")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("softmax-rows",
     [(f"{KERNELS}/softmax.c", " || input->size % (size_t)p.row_size != 0", "")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("softmax-output-size",
     [(f"{KERNELS}/softmax.c", "if (output->size != 2u * input->size || ", "if (")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("add-operand-sizes",
     [(f"{KERNELS}/add.c", " || a->size != output->size || b->size != output->size ||", " ||")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("mul-operand-sizes",
     [(f"{KERNELS}/mul.c", " || a->size != output->size || b->size != output->size ||", " ||")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("window-input-size",
     [(f"{KERNELS}/signal_window.c", "if (in->size != 2u * n || ", "if (")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("window-output-size",
     [(f"{KERNELS}/signal_window.c", "out->size != 2u * n || w->size", "w->size")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("window-weights-size",
     [(f"{KERNELS}/signal_window.c", " || w->size != 2u * frame) {", ") {")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("energy-output-size",
     [(f"{KERNELS}/signal_energy.c", "if (out->size != 4u * (size_t)p.count || ", "if (")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("energy-input-reach",
     [(f"{KERNELS}/signal_energy.c", " || in->size < 4u * (size_t)p.end) {", ") {")],
     ARGUMENTS + ["an_input_shorter_than_its_walk_is_refused"]),
    ("int-binary-a-reach",
     [(f"{KERNELS}/int_binary.c", " || reach(p.extent, p.a_stride) >= a->size / w ||", " ||")],
     ARGUMENTS + ["an_input_shorter_than_its_walk_is_refused"]),
    ("int-binary-b-reach",
     [(f"{KERNELS}/int_binary.c", " ||\n        reach(p.extent, p.b_stride) >= b->size / w) {", ") {")],
     ARGUMENTS + ["an_input_shorter_than_its_walk_is_refused"]),
    ("int-binary-output-size",
     [(f"{KERNELS}/int_binary.c", "out->size != product4(count, w, 1, 1) ||", "")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("square-root-input-size",
     [(f"{KERNELS}/signal_filter_bank_square_root.c", "if (in->size != 8u * (size_t)p.count || ", "if (")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("square-root-output-size",
     [(f"{KERNELS}/signal_filter_bank_square_root.c", "out->size != 4u * (size_t)p.count || bits", "bits")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("square-root-bits-size",
     [(f"{KERNELS}/signal_filter_bank_square_root.c", " || bits->size != sizeof shift) {", ") {")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("fft-auto-scale-input-size",
     [(f"{KERNELS}/signal_fft_auto_scale.c", "if (in->size != 2u * n || ", "if (")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("fft-auto-scale-output-size",
     [(f"{KERNELS}/signal_fft_auto_scale.c", "out->size != 2u * n || bits->size", "bits->size")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("fft-auto-scale-bits-size",
     [(f"{KERNELS}/signal_fft_auto_scale.c", " || bits->size != 4u) {", ") {")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("filter-bank-log-input-size",
     [(f"{KERNELS}/signal_filter_bank_log.c", "if (in->size != 4u * (size_t)p.count || ", "if (")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("filter-bank-log-output-size",
     [(f"{KERNELS}/signal_filter_bank_log.c", " || out->size != 2u * (size_t)p.count) {", ") {")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("pcan-input-size",
     [(f"{KERNELS}/signal_pcan.c", "if (in->size != 4u * n || noise", "if (noise")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("pcan-noise-size",
     [(f"{KERNELS}/signal_pcan.c", "noise->size != 4u * n || out->size", "out->size")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("pcan-output-size",
     [(f"{KERNELS}/signal_pcan.c", "out->size != 4u * n || lut->size", "lut->size")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("pcan-table-size",
     [(f"{KERNELS}/signal_pcan.c", " || lut->size != 2u * (size_t)p.lut_count) {", ") {")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("spectral-subtraction-input-size",
     [(f"{KERNELS}/signal_filter_bank_spectral_subtraction.c", "if (in->size != 4u * n || state", "if (state")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("spectral-subtraction-state-size",
     [(f"{KERNELS}/signal_filter_bank_spectral_subtraction.c", "state->size != 4u * n || out", "out")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("spectral-subtraction-output-size",
     [(f"{KERNELS}/signal_filter_bank_spectral_subtraction.c", "out->size != 4u * n || noise", "noise")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("spectral-subtraction-noise-size",
     [(f"{KERNELS}/signal_filter_bank_spectral_subtraction.c", " || noise->size != 4u * n) {", ") {")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("ethos-u-input-size",
     [("runtime-c/backends/ethos-u/ethosu_backend.c", "if (in && t->size != io.bytes) {", "if (0) {")],
     C_RUNTIME + ["ethos_u"]),
    ("ethos-u-scratch-size",
     [("runtime-c/backends/ethos-u/ethosu_backend.c", "if (planned->size < b.scratch_size || planned->data == NULL) {",
       "if (planned->data == NULL) {")],
     C_RUNTIME + ["ethos_u"]),
    ("ethos-u-npu-alignment",
     [("runtime-c/backends/ethos-u/ethosu_backend.c", "return ((uintptr_t)p % NPU_ALIGN) == 0 && ", "return ")],
     C_RUNTIME + ["ethos_u"]),
    ("ethos-u-io-overlap",
     [("runtime-c/backends/ethos-u/ethosu_backend.c", "return apart ? AP_OK : AP_ERR_ARGUMENT_MISMATCH;", "return AP_OK;")],
     C_RUNTIME + ["ethos_u"]),
    ("ethos-u-output-rows",
     [("runtime-c/backends/ethos-u/ethosu_backend.c", "return *row > o->stride ? AP_ERR_UNSUPPORTED : AP_OK;", "return AP_OK;")],
     C_RUNTIME + ["ethos_u"]),
    ("neutron-scratch-size",
     [("runtime-c/backends/neutron/neutron_backend.c", "if (a->scratch[slot].data == NULL || a->scratch[slot].size < need) {",
       "if (a->scratch[slot].data == NULL) {")],
     C_RUNTIME + ["neutron"]),
    ("neutron-transposed-size",
     [("runtime-c/backends/neutron/neutron_backend.c", "if (arg->data == NULL || arg->size != tensor) {", "if (arg->data == NULL) {")],
     C_RUNTIME + ["neutron"]),
    ("svdf-input-size",
     [(f"{KERNELS}/svdf.c", "if (input->size != batches * (size_t)p.input_size || features", "if (features")],
     ARGUMENTS + ["svdf_operands_of_other_bytes_than_the_parameters_give_are_refused"]),
    ("svdf-features-size",
     [(f"{KERNELS}/svdf.c", "features->size != filters * (size_t)p.input_size ||\n        time", "\n        time")],
     ARGUMENTS + ["svdf_operands_of_other_bytes_than_the_parameters_give_are_refused"]),
    ("svdf-time-size",
     [(f"{KERNELS}/svdf.c", "time->size != product4(filters, memory, width, 1) || bias", "bias")],
     ARGUMENTS + ["svdf_operands_of_other_bytes_than_the_parameters_give_are_refused"]),
    ("svdf-bias-size",
     [(f"{KERNELS}/svdf.c", "bias->size != units * sizeof(int32_t) ||\n", "\n")],
     ARGUMENTS + ["svdf_operands_of_other_bytes_than_the_parameters_give_are_refused"]),
    ("svdf-state-size",
     [(f"{KERNELS}/svdf.c", "state_bytes == 0 || state->size != state_bytes || output", "state_bytes == 0 || output")],
     ARGUMENTS + ["svdf_operands_of_other_bytes_than_the_parameters_give_are_refused"]),
    ("svdf-output-size",
     [(f"{KERNELS}/svdf.c", "output->size != batches * units || scratch_bytes", "scratch_bytes")],
     ARGUMENTS + ["svdf_operands_of_other_bytes_than_the_parameters_give_are_refused"]),
    ("svdf-scratch-size",
     [(f"{KERNELS}/svdf.c", "scratch->size < scratch_bytes || !int32_aligned(bias)", "!int32_aligned(bias)")],
     ARGUMENTS + ["svdf_operands_of_other_bytes_than_the_parameters_give_are_refused"]),
    ("svdf-sums-size",
     [(f"{KERNELS}/svdf.c", "(sums != NULL && (sums->size != filters * sizeof(int32_t) || !int32_aligned(sums)))",
       "(sums != NULL && !int32_aligned(sums))")],
     ARGUMENTS + ["svdf_operands_of_other_bytes_than_the_parameters_give_are_refused"]),
    ("lstm-input-size",
     [(f"{KERNELS}/unidirectional_sequence_lstm.c", "input->size == in_bytes && ", "")],
     ARGUMENTS + ["lstm_operands_of_other_bytes_than_the_parameters_give_are_refused"]),
    ("lstm-output-size",
     [(f"{KERNELS}/unidirectional_sequence_lstm.c", "output->size == out_bytes &&", "")],
     ARGUMENTS + ["lstm_operands_of_other_bytes_than_the_parameters_give_are_refused"]),
    ("lstm-hidden-size",
     [(f"{KERNELS}/unidirectional_sequence_lstm.c", "hidden->size == b * h && ", "")],
     ARGUMENTS + ["lstm_operands_of_other_bytes_than_the_parameters_give_are_refused"]),
    ("lstm-cell-size",
     [(f"{KERNELS}/unidirectional_sequence_lstm.c", "cell->size == product4(b, h, sizeof(int16_t), 1) &&", "")],
     ARGUMENTS + ["lstm_operands_of_other_bytes_than_the_parameters_give_are_refused"]),
    ("lstm-sums-size",
     [(f"{KERNELS}/unidirectional_sequence_lstm.c", "sums->size == 8u * h * sizeof(int32_t) && ", "")],
     ARGUMENTS + ["lstm_operands_of_other_bytes_than_the_parameters_give_are_refused"]),
    ("lstm-scratch-size",
     [(f"{KERNELS}/unidirectional_sequence_lstm.c", "scratch->size >= product4(2u, b, h, sizeof(int16_t)) && ", "")],
     ARGUMENTS + ["lstm_operands_of_other_bytes_than_the_parameters_give_are_refused"]),
    ("lstm-weights-size",
     [(f"{KERNELS}/unidirectional_sequence_lstm.c", "ok = args[1 + g].size == h * in && ", "ok = ")],
     ARGUMENTS + ["lstm_operands_of_other_bytes_than_the_parameters_give_are_refused"]),
    ("lstm-recurrent-size",
     [(f"{KERNELS}/unidirectional_sequence_lstm.c", "args[5 + g].size == h * h && ", "")],
     ARGUMENTS + ["lstm_operands_of_other_bytes_than_the_parameters_give_are_refused"]),
    ("lstm-bias-size",
     [(f"{KERNELS}/unidirectional_sequence_lstm.c", "args[9 + g].size == h * sizeof(int32_t) &&", "")],
     ARGUMENTS + ["lstm_operands_of_other_bytes_than_the_parameters_give_are_refused"]),
    ("rfft-twiddles-size",
     [(f"{KERNELS}/signal_rfft.c", "if (length != 1 || tw->size != 4u * half || ", "if (length != 1 || ")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("rfft-super-twiddles-size",
     [(f"{KERNELS}/signal_rfft.c", "super->size != 4u * (half / 2u) ||", "")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("rfft-input-size",
     [(f"{KERNELS}/signal_rfft.c", "in->size != product4(2u, frame_in, (size_t)p.frames, 1) ||", "")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("rfft-output-size",
     [(f"{KERNELS}/signal_rfft.c", "out->size != product4(4u, frame_out, (size_t)p.frames, 1) ||", "")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("filter-bank-input-size",
     [(f"{KERNELS}/signal_filter_bank.c", "if (in->size != 4u * (size_t)p.input_count || ", "if (")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("filter-bank-weights-size",
     [(f"{KERNELS}/signal_filter_bank.c", "w->size != 2u * (size_t)p.weight_count || u->size", "u->size")],
     ARGUMENTS + ["an_input_shorter_than_its_walk_is_refused"]),
    ("filter-bank-unweights-size",
     [(f"{KERNELS}/signal_filter_bank.c", "u->size != w->size ||", "")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("filter-bank-output-size",
     [(f"{KERNELS}/signal_filter_bank.c", " || out->size != 8u * channels) {", ") {")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("filter-bank-frequency-starts",
     [(f"{KERNELS}/signal_filter_bank.c", "freq->size < 2u * (channels + 1u) || ", "")],
     ARGUMENTS + ["an_input_shorter_than_its_walk_is_refused"]),
    ("filter-bank-weight-starts",
     [(f"{KERNELS}/signal_filter_bank.c", "wstart->size < 2u * (channels + 1u) ||", "")],
     ARGUMENTS + ["an_input_shorter_than_its_walk_is_refused"]),
    ("filter-bank-widths",
     [(f"{KERNELS}/signal_filter_bank.c", "width->size < 2u * (channels + 1u) || ", "")],
     ARGUMENTS + ["an_input_shorter_than_its_walk_is_refused"]),
    ("conv-input-size",
     [(f"{KERNELS}/conv_call.c", "        input->size !=\n            product4(product4((size_t)p->batches, (size_t)p->input_h, (size_t)p->input_w, (size_t)p->input_c), act, 1, 1) ||\n", "")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("conv-filter-size",
     [(f"{KERNELS}/conv_call.c", "        filter->size != product4((size_t)p->filter_h, (size_t)p->filter_w, filter_c, oc) ||\n", "")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("conv-bias-size",
     [(f"{KERNELS}/conv_call.c", "        bias->size != oc * bias_width ||\n", "")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("conv-output-size",
     [(f"{KERNELS}/conv_call.c", " ||\n        output->size != product4(product4((size_t)p->batches, (size_t)p->output_h, (size_t)p->output_w, oc), act, 1, 1)) {", ") {")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("pool-input-size",
     [(f"{KERNELS}/pooling.c", "        input->size !=\n            product4(product4((size_t)p.batches, (size_t)p.channels, (size_t)p.input_h, (size_t)p.input_w), width, 1, 1) ||\n", "")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("pool-output-size",
     [(f"{KERNELS}/pooling.c", "        output->size !=\n            product4(product4((size_t)p.batches, (size_t)p.channels, (size_t)p.output_h, (size_t)p.output_w), width, 1, 1) ||\n", "")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("slice-input-size",
     [(f"{KERNELS}/strided_slice.c", "in_count == 0 || in->size != product4(in_count, w, 1, 1) || out", "in_count == 0 || out")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("slice-output-size",
     [(f"{KERNELS}/strided_slice.c", " || out->size != product4(out_count, w, 1, 1)) {", ") {")],
     ARGUMENTS + ["a_tensor_of_other_bytes_than_the_parameters_give_is_refused"]),
    ("reshape-size",
     [(f"{KERNELS}/reshape.c", "if (!io_is(ctx, args, nargs, 1, 1) || args[0].size != args[1].size) {",
       "if (!io_is(ctx, args, nargs, 1, 1)) {")],
     ARGUMENTS + ["a_reshape_to_other_bytes_is_refused"]),
    ("neutron-empty-tensor",
     [("runtime-c/backends/neutron/neutron_backend.c",
       "if (t->data == NULL || t->size == 0) {", "if (0) {")],
     C_RUNTIME + ["neutron_backend_on_the_simulator"]),
    ("ethos-u-empty-output",
     [("runtime-c/backends/ethos-u/ethosu_backend.c",
       "if (o->bytes == 0 || tensor_bytes == 0) {", "if (o->bytes == 0) {")],
     C_RUNTIME + ["ethos_u_backend_on_the_driver_simulator"]),
]


def run_mutant(name, edits, test):
    """Applies `edits`, runs `test`, undoes them; whether the test failed, and its output."""
    originals = {}
    for path, original, _ in edits:
        full = os.path.join(ROOT, path)
        if full not in originals:
            with open(full) as f:
                originals[full] = f.read()
        if originals[full].count(original) != 1:
            sys.exit(f"{name}: `{original.strip()}` is not in {path} exactly once: update the mutant")

    def undo(*_):
        for full, source in originals.items():
            with open(full, "w") as f:
                f.write(source)

    signal.signal(signal.SIGINT, lambda *a: (undo(), sys.exit(130)))
    signal.signal(signal.SIGTERM, lambda *a: (undo(), sys.exit(143)))
    try:
        mutated = dict(originals)
        for path, original, replacement in edits:
            full = os.path.join(ROOT, path)
            mutated[full] = mutated[full].replace(original, replacement)
        for full, source in mutated.items():
            with open(full, "w") as f:
                f.write(source)
        env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(ROOT, "target", "c-mutants"))
        result = subprocess.run(["cargo", "test", "--quiet", *test], cwd=ROOT, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    finally:
        undo()
    compiled = "error: could not compile" not in result.stdout
    killed = result.returncode != 0 and compiled and "running 0 tests" not in result.stdout
    return killed, result.stdout


def main():
    if "--list" in sys.argv:
        for m in MUTANTS:
            print(f"{m[0]:36} {', '.join(sorted({e[0] for e in m[1]}))}")
        return
    chosen = sys.argv[1:]
    unknown = set(chosen) - {m[0] for m in MUTANTS}
    if unknown:
        sys.exit(f"no mutant named {', '.join(sorted(unknown))} (--list lists them)")
    survivors = []
    for mutant in MUTANTS:
        if chosen and mutant[0] not in chosen:
            continue
        killed, output = run_mutant(*mutant)
        print(f"{mutant[0]:36} {'killed' if killed else 'SURVIVED'}", flush=True)
        if not killed:
            survivors.append(mutant[0])
            print(output[-3000:])
    if survivors:
        sys.exit(f"{len(survivors)} mutant(s) survived: {', '.join(survivors)}")


if __name__ == "__main__":
    main()
