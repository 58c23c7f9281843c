"""The model planner's own concerns: palette, prompts, rewrite, repair and the faithfulness check."""
