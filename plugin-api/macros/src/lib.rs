//! Macros of the Tessera guest SDK. Use them through `tessera_plugin_api` (they expand to
//! paths under `::tessera_plugin_api`), which documents them.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::{format_ident, quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, Error, FnArg, Ident, ItemFn, LitStr, Path, Token, Type};

/// Marks `fn(&Ctx, Obj, &P) -> bool` as the condition with the given full id.
#[proc_macro_attribute]
pub fn condition(attr: TokenStream, item: TokenStream) -> TokenStream {
    definition(Kind::Condition, attr, item)
}

/// Marks `fn(&Ctx, &P) -> Vec<Obj>` as the selector with the given full id.
#[proc_macro_attribute]
pub fn selector(attr: TokenStream, item: TokenStream) -> TokenStream {
    definition(Kind::Selector, attr, item)
}

/// Marks `fn(&Ctx, &[Obj], &P) -> Result<(), E>` as the action with the given full id.
#[proc_macro_attribute]
pub fn action(attr: TokenStream, item: TokenStream) -> TokenStream {
    definition(Kind::Action, attr, item)
}

/// Marks `fn(&Ctx, &P) -> Result<(), E>` as the pipeline node type with the given full id.
#[proc_macro_attribute]
pub fn node(attr: TokenStream, item: TokenStream) -> TokenStream {
    definition(Kind::Node, attr, item)
}

/// Implements `Params` for a struct that also derives `serde::Deserialize`.
#[proc_macro_derive(Params, attributes(params))]
pub fn derive_params(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    params(input)
        .unwrap_or_else(Error::into_compile_error)
        .into()
}

/// Generates the module's ABI exports: `export_plugin!(provides = [a, b], ...)`.
#[proc_macro]
pub fn export_plugin(input: TokenStream) -> TokenStream {
    let args = syn::parse_macro_input!(input as ExportArgs);
    export(args)
        .unwrap_or_else(Error::into_compile_error)
        .into()
}

#[derive(Clone, Copy)]
enum Kind {
    Condition,
    Selector,
    Action,
    Node,
    Loader,
}

impl Kind {
    fn category(self) -> &'static str {
        match self {
            Kind::Condition => "condition",
            Kind::Selector => "selector",
            Kind::Action => "action",
            Kind::Node => "node",
            Kind::Loader => "loader",
        }
    }

    /// The arguments before the optional parameters argument.
    fn fixed_args(self) -> usize {
        match self {
            Kind::Condition | Kind::Action => 2,
            Kind::Selector | Kind::Node | Kind::Loader => 1,
        }
    }

    fn signature(self) -> &'static str {
        match self {
            Kind::Condition => "fn(ctx: &Ctx, obj: Obj, params: &P) -> bool",
            Kind::Selector => "fn(ctx: &Ctx, params: &P) -> Vec<Obj>",
            Kind::Action => "fn(ctx: &Ctx, targets: &[Obj], params: &P) -> Result<(), E>",
            Kind::Node => "fn(ctx: &Ctx, params: &P) -> Result<(), E>",
            Kind::Loader => "fn(text: &str) -> Result<serde_json::Value, LoadError>",
        }
    }
}

/// The name of the hidden static describing definition `f`.
fn def_ident(f: &Ident) -> Ident {
    format_ident!("__tessera_def_{}", f)
}

/// Checks `namespace:category/name` against the attribute's kind.
fn check_id(kind: Kind, lit: &LitStr) -> syn::Result<()> {
    let id = lit.value();
    let ok_part = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_-./".contains(c))
    };
    let bad = |why: String| Err(Error::new(lit.span(), why));
    let Some((ns, rest)) = id.split_once(':') else {
        return bad(format!(
            "`{id}` is not a full id: expected `namespace:{}/name`",
            kind.category()
        ));
    };
    let Some((category, name)) = rest.split_once('/') else {
        return bad(format!(
            "`{id}` is not a full id: expected `{ns}:{}/name`",
            kind.category()
        ));
    };
    if category != kind.category() {
        return bad(format!(
            "`{id}` is in category `{category}`, but this is a {}: expected `{ns}:{}/{name}`",
            kind.category(),
            kind.category()
        ));
    }
    if !ok_part(ns) || !ok_part(name) || ns.contains('/') {
        return bad(format!(
            "`{id}`: namespace and name must be non-empty lowercase ASCII, digits, `_`, `-`, `.`"
        ));
    }
    Ok(())
}

/// The doc comment of an item as text: lines of a paragraph joined by spaces, paragraphs
/// by a blank line (what Markdown renders).
fn docs(attrs: &[Attribute]) -> String {
    let mut lines = Vec::new();
    for a in attrs {
        if !a.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &a.meta {
            if let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
            {
                let v = s.value();
                lines.push(v.strip_prefix(' ').unwrap_or(&v).trim_end().to_owned());
            }
        }
    }
    let mut out = String::new();
    for para in lines.join("\n").split("\n\n") {
        let para = para
            .split('\n')
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>();
        if para.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(&para.join(" "));
    }
    out
}

fn definition(kind: Kind, attr: TokenStream, item: TokenStream) -> TokenStream {
    let id = syn::parse_macro_input!(attr as LitStr);
    let f = syn::parse_macro_input!(item as ItemFn);
    definition_tokens(kind, &id, f)
        .unwrap_or_else(Error::into_compile_error)
        .into()
}

fn definition_tokens(kind: Kind, id: &LitStr, f: ItemFn) -> syn::Result<Tokens> {
    check_id(kind, id)?;
    let sig = &f.sig;
    if !sig.generics.params.is_empty() || sig.asyncness.is_some() || sig.variadic.is_some() {
        return Err(Error::new(
            sig.span(),
            format!(
                "a {} is a plain function: {}",
                kind.category(),
                kind.signature()
            ),
        ));
    }
    let fixed = kind.fixed_args();
    let n = sig.inputs.len();
    if n != fixed && n != fixed + 1 {
        return Err(Error::new(
            sig.inputs.span(),
            format!(
                "a {} takes {fixed} or {} arguments: {}",
                kind.category(),
                fixed + 1,
                kind.signature()
            ),
        ));
    }
    let params_ty: Type = match sig.inputs.iter().nth(fixed) {
        None => syn::parse_quote!(()),
        Some(FnArg::Typed(pt)) => match &*pt.ty {
            Type::Reference(r) if r.mutability.is_none() => (*r.elem).clone(),
            other => {
                return Err(Error::new(
                    other.span(),
                    "the parameters argument is a shared reference: `params: &P`",
                ))
            }
        },
        Some(other) => return Err(Error::new(other.span(), "expected a typed argument")),
    };
    let has_params = n == fixed + 1;
    let name = &sig.ident;
    let vis = &f.vis;
    let def = def_ident(name);
    let doc = docs(&f.attrs);
    let rt = quote!(::tessera_plugin_api::__rt);
    let p = if has_params { quote!(, &p) } else { quote!() };
    let (variant, closure) = match kind {
        Kind::Condition => (
            quote!(Condition),
            quote!(move |ctx, obj| #rt::ConditionOutput::into_result(#name(ctx, obj #p))),
        ),
        Kind::Selector => (
            quote!(Selector),
            quote!(move |ctx| #rt::SelectorOutput::push_all(#name(ctx #p), ctx)),
        ),
        Kind::Action => (
            quote!(Action),
            quote!(move |ctx, targets| #rt::UnitOutput::into_result(#name(ctx, targets #p))),
        ),
        Kind::Node => (
            quote!(Node),
            quote!(move |ctx| #rt::UnitOutput::into_result(#name(ctx #p))),
        ),
        Kind::Loader => {
            return Err(Error::new(
                sig.span(),
                "write a loader with `#[loader(\"ns:loader/name\", extensions = [...])]`",
            ))
        }
    };
    let span = sig.ident.span();
    let bind = if has_params { quote!(p) } else { quote!(_p) };
    Ok(quote_spanned! {span=>
        #f

        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        #vis static #def: #rt::Def = #rt::Def {
            kind: ::tessera_plugin_api::abi::Kind::#variant,
            id: #id,
            doc: #doc,
            params: <#params_ty as ::tessera_plugin_api::Params>::describe,
            prepare: |json| {
                let #bind = <#params_ty as ::tessera_plugin_api::Params>::from_json(json)?;
                ::core::result::Result::Ok(#rt::Prepared::#variant(::std::boxed::Box::new(#closure)))
            },
            extensions: &[],
            load: ::core::option::Option::None,
        };
    })
}

/// `#[loader("ns:loader/name", extensions = ["csv"])]` arguments.
struct LoaderArgs {
    id: LitStr,
    extensions: Vec<LitStr>,
}

impl syn::parse::Parse for LoaderArgs {
    fn parse(input: syn::parse::ParseStream<'_>) -> syn::Result<Self> {
        let id: LitStr = input.parse()?;
        input.parse::<syn::Token![,]>().map_err(|e| {
            Error::new(e.span(), "a loader names its file extensions: `#[loader(\"ns:loader/name\", extensions = [\"csv\"])]`")
        })?;
        let key: Ident = input.parse()?;
        if key != "extensions" {
            return Err(Error::new(key.span(), "expected `extensions = [\"...\"]`"));
        }
        input.parse::<syn::Token![=]>()?;
        let list;
        syn::bracketed!(list in input);
        let exts = syn::punctuated::Punctuated::<LitStr, syn::Token![,]>::parse_terminated(&list)?;
        let extensions: Vec<LitStr> = exts.into_iter().collect();
        if extensions.is_empty() {
            return Err(Error::new(
                key.span(),
                "a loader reads at least one file extension",
            ));
        }
        for e in &extensions {
            let v = e.value();
            if v.is_empty()
                || v.starts_with('.')
                || !v
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                return Err(Error::new(
                    e.span(),
                    format!("`{v}` is not a file extension: write it without the dot, e.g. `csv`"),
                ));
            }
        }
        let _ = input.parse::<Option<syn::Token![,]>>()?;
        Ok(LoaderArgs { id, extensions })
    }
}

/// Defines a content loader: `fn(text: &str) -> Result<serde_json::Value, LoadError>`,
/// turning files of its extensions into the content tree (the shape of a TOML/JSON content
/// file). Errors carry a byte offset, which the host reports as file:line:col.
#[proc_macro_attribute]
pub fn loader(attr: TokenStream, item: TokenStream) -> TokenStream {
    let args = syn::parse_macro_input!(attr as LoaderArgs);
    let f = syn::parse_macro_input!(item as ItemFn);
    loader_tokens(&args, f)
        .unwrap_or_else(Error::into_compile_error)
        .into()
}

fn loader_tokens(args: &LoaderArgs, f: ItemFn) -> syn::Result<Tokens> {
    check_id(Kind::Loader, &args.id)?;
    let sig = &f.sig;
    if !sig.generics.params.is_empty() || sig.asyncness.is_some() || sig.inputs.len() != 1 {
        return Err(Error::new(
            sig.span(),
            format!("a loader is a plain function: {}", Kind::Loader.signature()),
        ));
    }
    let name = &sig.ident;
    let vis = &f.vis;
    let def = def_ident(name);
    let doc = docs(&f.attrs);
    let id = &args.id;
    let exts = &args.extensions;
    let rt = quote!(::tessera_plugin_api::__rt);
    let span = sig.ident.span();
    Ok(quote_spanned! {span=>
        #f

        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        #vis static #def: #rt::Def = #rt::Def {
            kind: ::tessera_plugin_api::abi::Kind::Loader,
            id: #id,
            doc: #doc,
            params: ::std::vec::Vec::new,
            prepare: |_| ::core::result::Result::Err(::std::string::String::from(
                "a loader is not prepared: it reads content files",
            )),
            extensions: &[#(#exts),*],
            load: ::core::option::Option::Some(#name),
        };
    })
}

/// `export_plugin!` arguments.
struct ExportArgs {
    name: Option<LitStr>,
    provides: Vec<Path>,
    save_state: Option<Path>,
    load_state: Option<Path>,
}

impl Parse for ExportArgs {
    fn parse(input: ParseStream<'_>) -> syn::Result<ExportArgs> {
        let mut args = ExportArgs {
            name: None,
            provides: Vec::new(),
            save_state: None,
            load_state: None,
        };
        let mut seen_provides = false;
        while !input.is_empty() {
            let key: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            match key.to_string().as_str() {
                "name" => args.name = Some(input.parse()?),
                "provides" => {
                    let content;
                    syn::bracketed!(content in input);
                    let list = Punctuated::<Path, Token![,]>::parse_terminated(&content)?;
                    args.provides = list.into_iter().collect();
                    seen_provides = true;
                }
                "save_state" => args.save_state = Some(input.parse()?),
                "load_state" => args.load_state = Some(input.parse()?),
                other => {
                    return Err(Error::new(
                        key.span(),
                        format!(
                            "unknown argument `{other}`: expected `name`, `provides`, `save_state` or `load_state`"
                        ),
                    ))
                }
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        if !seen_provides {
            return Err(Error::new(
                Span::call_site(),
                "missing `provides = [...]`: the functions marked #[condition], #[selector], #[action] or #[node]",
            ));
        }
        Ok(args)
    }
}

fn export(args: ExportArgs) -> syn::Result<Tokens> {
    if args.save_state.is_some() != args.load_state.is_some() {
        return Err(Error::new(
            Span::call_site(),
            "give both `save_state = fn() -> Vec<u8>` and `load_state = fn(&[u8]) -> Result<(), E>`, or neither",
        ));
    }
    let rt = quote!(::tessera_plugin_api::__rt);
    let name = match &args.name {
        Some(n) => quote!(#n),
        None => quote!(::core::env!("CARGO_PKG_NAME")),
    };
    let defs = args.provides.iter().map(|p| {
        let mut p = p.clone();
        if let Some(last) = p.segments.last_mut() {
            last.ident = def_ident(&last.ident);
        }
        quote!(&#p)
    });
    let state = match (&args.save_state, &args.load_state) {
        (Some(save), Some(load)) => quote! {
            ::tessera_plugin_api::__tessera_export_state!(#save, #load);
        },
        _ => quote!(),
    };
    // The entry points themselves come from the SDK (`sys`), which knows whether it is
    // building a wasm module or a native library.
    Ok(quote! {
        #[doc(hidden)]
        static __TESSERA_PLUGIN: #rt::Plugin = #rt::Plugin {
            name: #name,
            provides: &[#(#defs),*],
        };

        ::tessera_plugin_api::__tessera_export_abi!(__TESSERA_PLUGIN);
        #state
    })
}

/// What `#[serde(...)]` and `#[params(...)]` say about a field or container.
#[derive(Default)]
struct SerdeAttrs {
    rename: Option<String>,
    default: bool,
    skip: bool,
    rename_all: Option<(String, Span)>,
    init: Option<Path>,
}

/// Consumes the value of a `key = value` or `key(...)` meta we do not care about.
fn skip_meta(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|m| skip_meta(&m))?;
    }
    Ok(())
}

fn serde_attrs(attrs: &[Attribute]) -> syn::Result<SerdeAttrs> {
    let mut out = SerdeAttrs::default();
    for a in attrs {
        if a.path().is_ident("serde") {
            a.parse_nested_meta(|meta| {
                let key = meta
                    .path
                    .get_ident()
                    .map(Ident::to_string)
                    .unwrap_or_default();
                match key.as_str() {
                    "rename" if meta.input.peek(Token![=]) => {
                        out.rename = Some(meta.value()?.parse::<LitStr>()?.value());
                    }
                    "rename_all" if meta.input.peek(Token![=]) => {
                        let lit = meta.value()?.parse::<LitStr>()?;
                        out.rename_all = Some((lit.value(), lit.span()));
                    }
                    "default" => {
                        out.default = true;
                        skip_meta(&meta)?;
                    }
                    "skip" | "skip_deserializing" => out.skip = true,
                    "flatten" => {
                        return Err(meta.error("`#[serde(flatten)]` is not supported by `Params`"))
                    }
                    _ => skip_meta(&meta)?,
                }
                Ok(())
            })?;
        } else if a.path().is_ident("params") {
            a.parse_nested_meta(|meta| {
                if meta.path.is_ident("init") {
                    out.init = Some(meta.value()?.parse()?);
                    Ok(())
                } else {
                    Err(meta.error("unknown `params` attribute: expected `init = path`"))
                }
            })?;
        }
    }
    Ok(out)
}

/// Applies serde's `rename_all` to a field name.
fn rename_all(rule: &str, span: Span, field: &str) -> syn::Result<String> {
    let words: Vec<&str> = field.split('_').filter(|w| !w.is_empty()).collect();
    let cap = |w: &str| {
        let mut c = w.chars();
        c.next()
            .map(|f| f.to_uppercase().chain(c).collect::<String>())
            .unwrap_or_default()
    };
    Ok(match rule {
        "snake_case" | "lowercase" => field.to_owned(),
        "kebab-case" => words.join("-"),
        "SCREAMING_SNAKE_CASE" | "UPPERCASE" => field.to_uppercase(),
        "SCREAMING-KEBAB-CASE" => words.join("-").to_uppercase(),
        "camelCase" => {
            let mut s = words.first().map(|w| (*w).to_owned()).unwrap_or_default();
            s.extend(words.iter().skip(1).map(|w| cap(w)));
            s
        }
        "PascalCase" => words.iter().map(|w| cap(w)).collect(),
        other => {
            return Err(Error::new(
                span,
                format!("`rename_all = {other:?}` is not supported by `Params`"),
            ))
        }
    })
}

fn params(input: syn::DeriveInput) -> syn::Result<Tokens> {
    let name = &input.ident;
    if !input.generics.params.is_empty() {
        return Err(Error::new(
            input.generics.span(),
            "`Params` structs cannot be generic",
        ));
    }
    let container = serde_attrs(&input.attrs)?;
    let syn::Data::Struct(data) = &input.data else {
        return Err(Error::new(
            input.span(),
            "`Params` derives for a struct with named fields (the content's table)",
        ));
    };
    let mut fields = Vec::new();
    let unit = matches!(data.fields, syn::Fields::Unit);
    match &data.fields {
        syn::Fields::Named(named) => {
            for f in &named.named {
                let a = serde_attrs(&f.attrs)?;
                if a.skip {
                    continue;
                }
                let ident = f.ident.as_ref().map(Ident::to_string).unwrap_or_default();
                let ident = ident.strip_prefix("r#").unwrap_or(&ident).to_owned();
                let key = match (a.rename, &container.rename_all) {
                    (Some(r), _) => r,
                    (None, Some((rule, span))) => rename_all(rule, *span, &ident)?,
                    (None, None) => ident,
                };
                let ty = &f.ty;
                let default = a.default || container.default;
                let doc = docs(&f.attrs);
                fields.push(quote! {
                    ::tessera_plugin_api::__rt::field::<#ty>(#key, #default, #doc)
                });
            }
        }
        syn::Fields::Unit => {}
        syn::Fields::Unnamed(u) => {
            return Err(Error::new(
                u.span(),
                "`Params` needs named fields (the content's keys)",
            ))
        }
    }
    let init = container
        .init
        .map(|path| quote!(::tessera_plugin_api::__rt::init(&mut value, #path)?;));
    // A unit struct takes no parameters: content gives `{}`, which serde would refuse.
    let parse = if unit {
        quote!(let _ = json; #[allow(unused_mut)] let mut value = #name;)
    } else {
        quote!(#[allow(unused_mut)] let mut value: Self = ::tessera_plugin_api::__rt::parse(json)?;)
    };
    Ok(quote! {
        impl ::tessera_plugin_api::Params for #name {
            fn describe() -> ::std::vec::Vec<::tessera_plugin_api::abi::ParamDesc> {
                ::std::vec![#(#fields),*]
            }

            fn from_json(json: &[u8]) -> ::core::result::Result<Self, ::std::string::String> {
                #parse
                #init
                ::core::result::Result::Ok(value)
            }
        }
    })
}
