"""`knap lsp`: a language server for pack authors (issue 18).

model.py keeps the workspace's packs in memory and checks them with lint's own checks (so the findings,
codes and positions are those of `knap lint`); language.py answers what a cursor means (completion,
hover, ids and their uses); server.py speaks the Language Server Protocol over stdio through pygls.
The server reads only files inside the workspace roots the client names.
"""
