"""What tests/python/copy_slices_cases.py observes under torch 2.15.0+cu132 (tests/gen_autograd_expected.py); do not edit."""

EXPECTED = {
    'basic_number': [[[0.0, 12.0, 16.0, 20.0], [0.0, 28.0, 32.0, 36.0], [0.0, 44.0, 48.0, 52.0]], 'torch::autograd::CopySlices', 1],
    'basic_tensor_value': [[[8.0, 12.0, 16.0, 20.0], [0.0, 0.0, 0.0, 0.0], [40.0, 44.0, 48.0, 52.0]], [-18.0, -9.0, 0.0, 9.0], 'torch::autograd::CopySlices'],
    'view_mul_': 'RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.DoubleTensor [3, 4]], which is output 0 of Exp, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).',
    'plain_target_iadd': [[[0.0, 12.0, 9.0], [0.0, 73.5, 63.0]], 'torch::autograd::CopySlices', True, False],
    'stale_view': [[[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]], 'AsStridedBackward0'],
    'stale_view_other_row': [[[8.0, 12.0, 16.0, 20.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]],
    'advanced_tensor': [[[0.0, 0.0, -0.0], [-0.9589242746631386, -0.27941549819892586, 0.6569865987187891], [-0.0, -0.0, 0.0], [-0.9999902065507035, -0.5365729180004349, 0.4201670368266409]], [[-4.0, -3.0, -2.0], [-1.0, 0.0, 1.0]], 'IndexPutBackward0'],
    'mask_number': [[[3.0, 4.5, 6.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]], 'MaskedFillBackward0'],
    'broadcast_value': [[[8.0, 12.0, 16.0, 20.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]], [[12.0, 14.0, 16.0, 18.0]]],
    'leading_ones': [[[0.0, 0.0, 0.0, 0.0], [24.0, 28.0, 32.0, 36.0], [40.0, 44.0, 48.0, 52.0]], [[[6.0, 7.0, 8.0, 9.0]]]],
    'int_key_and_imul': [[[3.0, 0.0, 12.0, 18.75], [27.0, 36.75, 48.0, 60.75], [2025.0, 2450.25, 2916.0, 3422.25]], 3],
    'view_of_view': [[579.0, 23.0, 4.0, 25.0, 6.0], [1.0, 11.5, 2.0, 12.5, 3.0]],
    'leaf_error': 'a view of a leaf Variable that requires grad is being used in an in-place operation.',
    'leaf_view_error': 'a view of a leaf Variable that requires grad is being used in an in-place operation.',
    'zero_fill_views': [[[8.0, 0.0, 16.0, 20.0], [24.0, 0.0, 32.0, 36.0], [0.0, 0.0, 0.0, 0.0]], 'AsStridedBackward0'],
    'transposed_view_copy': [[[0.0, 3.0, 68.0], [0.0, 6.0, 119.0]]],
    'repeated_index_values': [[8.0, 0.0, 16.0, 0.0], [2.0, 8.0, 4.0, 7.0]],
    'create_graph': [[[0.0, 0.0, 0.0, 0.0], [2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0]], False],
}
