"""Language: the words of tasks (lexicon, grammar, quantities, typos)."""
