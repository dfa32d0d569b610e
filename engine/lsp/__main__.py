"""`python -m engine.lsp`: the language server over stdio, as `knap lsp` starts it."""

from engine.lsp.server import main

if __name__ == "__main__":
    main()
